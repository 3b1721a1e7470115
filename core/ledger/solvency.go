package ledger

import (
	"context"
	"fmt"
)

// Solvency compares what the instance owes its wallets with what its node
// holds: beyond the wallets' own balances (Check), the instance is
// solvent only when the node could pay every wallet out.
type Solvency struct {
	// OwedMsat is what the wallets hold: available and reserved.
	OwedMsat int64 `json:"owed_msat"`
	// OnchainSat is the node's confirmed on-chain balance; ChannelMsat its
	// channels' local balance.
	OnchainSat  int64 `json:"onchain_sat"`
	ChannelMsat int64 `json:"channel_msat"`
	// External is false for a node that holds no money of its own (the
	// embedded node): then nothing can be compared.
	External bool `json:"external"`
}

// HeldMsat is what the node holds.
func (v *Solvency) HeldMsat() int64 { return v.OnchainSat*1000 + v.ChannelMsat }

// Solvent reports whether the node holds at least what the wallets are
// owed (always, for a node that holds nothing of its own).
func (v *Solvency) Solvent() bool { return !v.External || v.HeldMsat() >= v.OwedMsat }

// Solvency reads what the wallets are owed and what the node holds.
func (s *Service) Solvency(ctx context.Context) (*Solvency, error) {
	var owed int64
	err := s.db.R.NewRaw("SELECT COALESCE(SUM(available_msat + reserved_msat), 0) FROM wallets").Scan(ctx, &owed)
	if err != nil {
		return nil, fmt.Errorf("summing the wallets: %w", err)
	}
	info, err := s.node.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("asking the node its balances: %w", err)
	}
	return &Solvency{OwedMsat: owed, OnchainSat: info.OnchainSat, ChannelMsat: info.LocalMsat,
		External: info.ExternalPayments}, nil
}
