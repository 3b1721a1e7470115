package config

import "testing"

// The on-chain keys: defaults, environment, bounds.
func TestOnchainKeys(t *testing.T) {
	t.Parallel()
	c, err := Load("", nil)
	if err != nil || c.Onchain != (Onchain{MinConfirmations: 1, ReorgBuffer: 6, TargetConf: 6}) {
		t.Fatalf("defaults %+v, %v", c.Onchain, err)
	}
	c, err = Load("", []string{"HEARTH_ONCHAIN_MIN_CONFIRMATIONS=3", "HEARTH_ONCHAIN_REORG_BUFFER=12", "HEARTH_ONCHAIN_TARGET_CONF=2"})
	if err != nil || c.Onchain != (Onchain{MinConfirmations: 3, ReorgBuffer: 12, TargetConf: 2}) {
		t.Fatalf("from the environment %+v, %v", c.Onchain, err)
	}
	for _, env := range []string{"HEARTH_ONCHAIN_MIN_CONFIRMATIONS=0", "HEARTH_ONCHAIN_REORG_BUFFER=0", "HEARTH_ONCHAIN_TARGET_CONF=0",
		"HEARTH_ONCHAIN_TARGET_CONF=2000"} {
		if _, err := Load("", []string{env}); err == nil {
			t.Errorf("%s accepted", env)
		}
	}
}
