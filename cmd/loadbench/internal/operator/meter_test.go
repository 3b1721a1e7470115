package operator

import "github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"

// machineMeter reads this process alone: the fake's database is no
// PostgreSQL.
func machineMeter() machine.Meter { return machine.Meter{} }
