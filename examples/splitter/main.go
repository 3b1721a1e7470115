// Command splitter is a Hearth plugin that forwards a configured
// percentage of every settled invoice of its wallet to a Lightning Address.
package main

import (
	"fmt"

	"github.com/hearthwallet/hearth/sdk"
)

type config struct {
	Address string `json:"address"`
	Percent int64  `json:"percent"`
	// MinMsat skips shares smaller than this (LNURL servers have minimums).
	MinMsat int64 `json:"min_msat"`
}

// Share is the part of received that goes on: percent of it, rounded down
// to whole satoshis.
func Share(received, percent int64) int64 {
	if percent <= 0 || received <= 0 {
		return 0
	}
	return min(received, received*min(percent, 100)/100) / 1000 * 1000
}

func onSettled(e sdk.Event) error {
	var cfg config
	if err := sdk.Config(&cfg); err != nil {
		return err
	}
	inv, err := e.Invoice()
	if err != nil {
		return err
	}
	if inv.AmountReceivedMsat == nil {
		return nil
	}
	share := Share(*inv.AmountReceivedMsat, cfg.Percent)
	if share <= 0 || share < cfg.MinMsat {
		sdk.Log.Debug(fmt.Sprintf("invoice %s: share %d msat too small to forward", inv.ID, share))
		return nil
	}
	// The idempotency key makes a redelivered event never pay twice.
	p, err := sdk.PayLightningAddress(cfg.Address, share, "split of "+inv.ID, "split:"+inv.ID)
	if err != nil {
		return fmt.Errorf("forwarding %d msat of %s to %s: %w", share, inv.ID, cfg.Address, err)
	}
	sdk.Log.Info(fmt.Sprintf("forwarded %d msat of %s to %s: payment %s %s", share, inv.ID, cfg.Address, p.ID, p.Status))
	return nil
}

func init() {
	sdk.OnEvent(sdk.InvoiceSettled, onSettled)
}

func main() {}
