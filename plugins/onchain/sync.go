package onchain

import (
	"context"
	"fmt"

	"github.com/hearthwallet/hearth/core/ledger"
)

// SyncResult is the answer of POST /v1/bitcoin/sync.
type SyncResult struct {
	// SyncedHeight is the chain's tip the sync read up to.
	SyncedHeight int64 `json:"synced_height"`
	// OutputsSeen counts the outputs to deposit addresses it saw.
	OutputsSeen int `json:"outputs_seen"`
}

// Sync reads the wallet's transactions from the cursor, rewound by the
// reorg buffer and down to the oldest deposit not yet credited, and
// records every output to a deposit address, crediting those deep enough;
// then it moves the cursor to the tip. It can run at any time, on any
// replica, any number of times: the ledger records an outpoint once and
// credits it once.
func (p *Plugin) Sync(ctx context.Context) (*SyncResult, error) {
	if p.chain == nil {
		return nil, ledger.ErrNoOnchain
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	cursor, err := p.cursor(ctx)
	if err != nil {
		return nil, err
	}
	from := max(cursor-p.cfg.ReorgBuffer, 0)
	pending, err := p.led.PendingDeposits(ctx)
	if err != nil {
		return nil, err
	}
	for _, inv := range pending {
		if o := inv.BitcoinOutput; o != nil && o.BlockHeight != nil {
			from = min(from, *o.BlockHeight)
		}
	}
	tip, txs, err := p.chain.ChainTransactions(ctx, from)
	if err != nil {
		return nil, fmt.Errorf("listing the wallet's transactions: %w", err)
	}
	seen, err := p.apply(ctx, txs)
	if err != nil {
		return nil, err
	}
	if err := p.forget(ctx, pending, txs); err != nil {
		return nil, err
	}
	if err := p.reconcileSpends(ctx, txs, true); err != nil {
		return nil, err
	}
	if err := p.setCursor(ctx, tip); err != nil {
		return nil, err
	}
	if p.synced != nil {
		p.synced(tip)
	}
	return &SyncResult{SyncedHeight: tip, OutputsSeen: seen}, nil
}

// apply records the outputs of txs paid to deposit addresses, crediting
// those with enough confirmations, and marks their addresses used. It
// returns how many outputs it saw.
func (p *Plugin) apply(ctx context.Context, txs []ledger.ChainTx) (int, error) {
	var addrs []string
	for _, tx := range txs {
		for _, o := range tx.Outputs {
			if o.Address != "" {
				addrs = append(addrs, o.Address)
			}
		}
	}
	known, err := p.walletsOf(ctx, addrs)
	if err != nil || len(known) == 0 {
		return 0, err
	}
	// The addresses are used before their deposits show: whoever sees a
	// deposit never gets its address handed out again.
	var used []string
	for addr := range known {
		used = append(used, addr)
	}
	if err := p.markUsed(ctx, used); err != nil {
		return 0, err
	}
	seen := 0
	for _, tx := range txs {
		for _, o := range tx.Outputs {
			walletID, ok := known[o.Address]
			if !ok || o.AmountSat <= 0 {
				continue
			}
			out := ledger.BitcoinOutput{TxID: tx.TxID, Vout: o.Vout, Address: o.Address, AmountSat: o.AmountSat,
				Confirmations: tx.Confirmations}
			if tx.BlockHeight > 0 {
				h := tx.BlockHeight
				out.BlockHeight = &h
			}
			d, err := p.led.Deposit(ctx, walletID, out, tx.BlockHeight > 0 && tx.Confirmations >= p.cfg.MinConfirmations)
			if err != nil {
				return seen, err
			}
			seen++
			if d.New {
				p.log.InfoContext(ctx, "onchain: deposit seen", "wallet_id", walletID, "txid", tx.TxID, "vout", o.Vout,
					"amount_sat", o.AmountSat, "confirmations", tx.Confirmations)
			}
			if d.Credited {
				p.log.InfoContext(ctx, "onchain: deposit credited", "wallet_id", walletID, "invoice_id", d.Invoice.ID,
					"txid", tx.TxID, "vout", o.Vout, "amount_sat", o.AmountSat)
			}
		}
	}
	return seen, nil
}

// forget shows as unconfirmed the pending deposits whose transactions the
// wallet no longer lists (double-spent, or dropped after a reorg): the
// listing covered their heights and the mempool, so they are in no block.
// They stay Pending; one that comes back is recorded as it is then.
func (p *Plugin) forget(ctx context.Context, pending []ledger.Invoice, txs []ledger.ChainTx) error {
	listed := make(map[string]bool, len(txs))
	for _, tx := range txs {
		listed[tx.TxID] = true
	}
	for _, inv := range pending {
		o := inv.BitcoinOutput
		if o == nil || listed[o.TxID] || (o.BlockHeight == nil && o.Confirmations == 0) {
			continue
		}
		gone := *o
		gone.BlockHeight, gone.Confirmations = nil, 0
		if _, err := p.led.Deposit(ctx, inv.WalletID, gone, false); err != nil {
			return err
		}
		p.log.WarnContext(ctx, "onchain: a pending deposit's transaction is no longer in the wallet", "wallet_id", inv.WalletID,
			"txid", o.TxID, "vout", o.Vout)
	}
	return nil
}

// reconcileSpends moves the pending spends on, when the node spends; with
// lookup, those txs leave out are looked up at the node.
func (p *Plugin) reconcileSpends(ctx context.Context, txs []ledger.ChainTx, lookup bool) error {
	if !p.chain.Spends() {
		return nil
	}
	if err := p.led.ReconcileSpends(ctx, txs, lookup); err != nil {
		return fmt.Errorf("reconciling spends: %w", err)
	}
	return nil
}
