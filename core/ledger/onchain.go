package ledger

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/fault"
)

// The on-chain half of the node, in wallet terms: deposit addresses and the
// wallet's transactions. A backend that has an on-chain wallet (lnd, later
// cln) implements ChainWallet; one that has none (the embedded node)
// answers ErrNoOnchain from every method, as OnchainOf does for a node that
// does not implement it at all.

// AddressType is the script type of a bitcoin address, as on the wire.
type AddressType string

// The address types of the API.
const (
	P2PKH  AddressType = "p2pkh"
	P2SH   AddressType = "p2sh" // nested segwit (P2SH-P2WPKH)
	P2WPKH AddressType = "p2wpkh"
	P2TR   AddressType = "p2tr"
)

// ParseAddressType returns the address type named s; an unknown name is
// a 400.
func ParseAddressType(s string) (AddressType, error) {
	switch t := AddressType(s); t {
	case P2PKH, P2SH, P2WPKH, P2TR:
		return t, nil
	}
	return "", fault.Invalidf("Invalid address type %q: expected p2pkh, p2sh, p2wpkh or p2tr", s)
}

// ChainWallet is the on-chain wallet of a node.
type ChainWallet interface {
	// NewAddress returns a new address of the node's wallet, of type typ;
	// ErrUnsupportedAddressType when the node cannot make that type.
	NewAddress(ctx context.Context, typ AddressType) (string, error)
	// ChainTransactions returns the chain's tip height and the wallet's
	// transactions confirmed at fromHeight or above, and the unconfirmed
	// ones.
	ChainTransactions(ctx context.Context, fromHeight int64) (tip int64, txs []ChainTx, err error)
	// SubscribeChain delivers a ChainEvent for every wallet transaction
	// seen or confirmed and every new block, until ctx ends or the stream
	// breaks; then it closes the channel.
	SubscribeChain(ctx context.Context) (<-chan ChainEvent, error)
}

// ChainTx is a transaction of the node's wallet.
type ChainTx struct {
	TxID string
	// BlockHeight is 0 while the transaction is unconfirmed.
	BlockHeight   int64
	Confirmations int64
	// FeeSat is the fee the wallet paid, for a transaction it sent.
	FeeSat  int64
	Outputs []ChainOutput
}

// ChainOutput is one output of a transaction.
type ChainOutput struct {
	Vout      uint32
	Address   string // "" when the script has no address
	AmountSat int64
}

// ChainEvent says something happened on the chain: a wallet transaction
// (Tx) or a new block (Height).
type ChainEvent struct {
	Tx     *ChainTx
	Height int64
}

// On-chain errors.
var (
	// ErrNoOnchain is every answer of a node without an on-chain wallet.
	ErrNoOnchain = fault.New(fault.Unprocessable, "onchain_unavailable", "the on-chain wallet needs an lnd or cln node")
	// ErrUnsupportedAddressType is an address type the node cannot make.
	ErrUnsupportedAddressType = fault.New(fault.Unprocessable, "unsupported_address_type", "Unsupported address type")
)

// Local is a node that lives in the instance's own database (the
// embedded node): its invoices are rows there (nothing to withdraw from
// it), and it has no chain, so its on-chain methods only refuse and
// OnchainOf answers nil for it. Callers probe for it rather than name
// the backend.
type Local interface {
	Local()
}

// OnchainOf returns the on-chain wallet of node, or nil when it has none.
func OnchainOf(node Node) ChainWallet {
	if _, local := node.(Local); local {
		return nil
	}
	cw, ok := node.(ChainWallet)
	if !ok {
		return nil
	}
	return cw
}

// BitcoinOutput is the on-chain part of an Onchain invoice: the output
// that paid it.
type BitcoinOutput struct {
	TxID      string `json:"txid"`
	Vout      uint32 `json:"vout"`
	Address   string `json:"address"`
	AmountSat int64  `json:"amount_sat"`
	// BlockHeight is absent while the transaction is unconfirmed.
	BlockHeight *int64 `json:"block_height,omitempty"`
	// Confirmations as of the last sync that saw the transaction.
	Confirmations int64 `json:"confirmations"`
}

// outpoint returns "txid:vout".
func (o BitcoinOutput) outpoint() string {
	return o.TxID + ":" + strconv.FormatUint(uint64(o.Vout), 10)
}

// depositHash is the payment_hash of the invoice of a deposit: unique per
// outpoint, and never a Lightning payment hash (nobody knows its
// preimage).
func depositHash(o BitcoinOutput) string {
	h := sha256.Sum256([]byte("hearth onchain deposit " + o.outpoint()))
	return hex.EncodeToString(h[:])
}

// onchainExpiry is the expires_at of a deposit's invoice: it never
// expires.
var onchainExpiry = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)

// Deposit is what Deposit did.
type Deposit struct {
	Invoice *Invoice
	// New is true when this call recorded the output.
	New bool
	// Credited is true when this call credited the wallet.
	Credited bool
}

// Deposit records an output paid to a deposit address of walletID: an
// Onchain invoice, Pending, once per outpoint however often it is seen.
// Each call brings the output's block height and confirmations up to date;
// with credit, the invoice turns Settled and the wallet is credited, in one
// transaction, once (single-winner: a replay, a rescan or another replica
// credits nothing). A Settled deposit is never taken back.
func (s *Service) Deposit(ctx context.Context, walletID string, out BitcoinOutput, credit bool) (*Deposit, error) {
	if out.AmountSat <= 0 {
		return nil, fmt.Errorf("deposit %s: amount %d sat", out.outpoint(), out.AmountSat)
	}
	now := s.timestamp()
	hash := depositHash(out)
	amount := out.AmountSat * 1000
	d := &Deposit{}
	var inv Invoice
	err := s.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		*d = Deposit{}
		vout := int64(out.Vout)
		row := &Invoice{ID: newID(), WalletID: walletID, AmountMsat: &amount, Status: StatusPending, Ledger: LedgerOnchain,
			CreatedAt: now, Bolt11: "onchain:" + out.outpoint(), PaymentHash: hash, PaymentSecret: "", PayeePubkey: "",
			ExpiresAt: onchainExpiry, BtcTxID: &out.TxID, BtcVout: &vout, BtcAddress: &out.Address, BtcAmountSat: &out.AmountSat,
			BtcBlockHeight: out.BlockHeight, BtcConfirmations: &out.Confirmations}
		// No conflict target: the outpoint makes both payment_hash and
		// bolt11, and a PostgreSQL insert racing another for the same
		// outpoint meets it on either index; with a target, a meeting on
		// the other one would be an error instead of a no-op.
		res, err := tx.NewInsert().Model(row).On("CONFLICT DO NOTHING").Returning("NULL").Exec(ctx)
		if d.New, err = affected(res, err); err != nil {
			return fmt.Errorf("recording deposit %s: %w", out.outpoint(), err)
		}
		if !d.New {
			_, err := tx.NewUpdate().Model((*Invoice)(nil)).
				Set("btc_block_height = ?", out.BlockHeight).Set("btc_confirmations = ?", out.Confirmations).
				Where("payment_hash = ?", hash).Where("ledger = ?", LedgerOnchain).Exec(ctx)
			if err != nil {
				return fmt.Errorf("updating deposit %s: %w", out.outpoint(), err)
			}
		}
		if credit {
			won, err := affected(tx.NewUpdate().Model((*Invoice)(nil)).
				Set("status = ?", StatusSettled).
				Set("amount_received_msat = amount_msat").
				Set("fee_msat = 0").
				Set("payment_time = ?", now).
				Set("updated_at = ?", now).
				Set("event_id = "+s.db.EventID()).
				Where("payment_hash = ?", hash).
				Where("ledger = ?", LedgerOnchain).
				Where("status = ?", StatusPending).Exec(ctx))
			if err != nil {
				return fmt.Errorf("settling deposit %s: %w", out.outpoint(), err)
			}
			d.Credited = won
		}
		if err := tx.NewSelect().Model(&inv).Where("payment_hash = ?", hash).Scan(ctx); err != nil {
			return fmt.Errorf("reading deposit %s: %w", out.outpoint(), err)
		}
		if inv.Ledger != LedgerOnchain {
			return fmt.Errorf("deposit %s: hash taken by a %s invoice", out.outpoint(), inv.Ledger)
		}
		if d.Credited {
			// The row's wallet, not the caller's: the first record wins.
			return s.credit(ctx, tx, inv.WalletID, *inv.AmountReceivedMsat, now)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	d.Invoice = inv.present(s.now())
	if d.Credited {
		s.publish(ctx, event.InvoiceSettled, inv.WalletID, inv.ID, d.Invoice)
	}
	return d, nil
}

// PendingDeposits returns the Onchain invoices not yet credited, oldest
// first.
func (s *Service) PendingDeposits(ctx context.Context) ([]Invoice, error) {
	var out []Invoice
	err := s.db.R.NewSelect().Model(&out).Where("ledger = ?", LedgerOnchain).Where("status = ?", StatusPending).
		OrderExpr("created_at, id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing pending deposits: %w", err)
	}
	for i := range out {
		out[i].present(s.now())
	}
	return out, nil
}

// presentOnchain fills the bitcoin_output of an Onchain invoice, which has
// no ln_invoice.
func (i *Invoice) presentOnchain() {
	i.LnInvoice = nil
	o := &BitcoinOutput{BlockHeight: i.BtcBlockHeight}
	if i.BtcTxID != nil {
		o.TxID = *i.BtcTxID
	}
	if i.BtcVout != nil {
		o.Vout = uint32(*i.BtcVout)
	}
	if i.BtcAddress != nil {
		o.Address = *i.BtcAddress
	}
	if i.BtcAmountSat != nil {
		o.AmountSat = *i.BtcAmountSat
	}
	if i.BtcConfirmations != nil {
		o.Confirmations = *i.BtcConfirmations
	}
	i.BitcoinOutput = o
}

// ChainSpender is the spending half of a node's on-chain wallet: a spend
// is prepared (funded from leased coins and signed, not published), so
// that its exact fee is known before any money is reserved; then
// published, or released.
type ChainSpender interface {
	// PrepareSpend funds and signs a transaction paying req.AmountSat to
	// req.Address, leasing its inputs under lease (any text: the same
	// text releases them), and returns it unpublished with its exact fee.
	// ErrNoChainFunds when the wallet cannot fund it; ErrInvalidAddress
	// for an address of another network or none.
	PrepareSpend(ctx context.Context, lease string, req SpendRequest) (*PreparedSpend, error)
	// PublishSpend broadcasts a prepared spend. A *PaymentFailure is
	// definite: the network refused it and it was not published. Any
	// other error is ambiguous.
	PublishSpend(ctx context.Context, sp *PreparedSpend) error
	// ReleaseSpend frees the inputs leased under lease; none is no error.
	ReleaseSpend(ctx context.Context, lease string) error
	// LookupChainTx returns a transaction of the wallet (published, or
	// seen paying it); ErrUnknownChainTx when the wallet does not know it.
	LookupChainTx(ctx context.Context, txid string) (*ChainTx, error)
}

// SpendRequest asks for an on-chain spend.
type SpendRequest struct {
	Address   string
	AmountSat int64
	// SatPerVByte is the fee rate; 0 for the node's estimate for
	// TargetConf blocks.
	SatPerVByte int64
	TargetConf  int32
}

// PreparedSpend is a signed transaction not yet published.
type PreparedSpend struct {
	TxID      string
	Address   string
	AmountSat int64
	// FeeSat is the transaction's exact fee: its inputs less its outputs.
	FeeSat int64
	// RawTx is the signed transaction, serialised.
	RawTx []byte
}

// More on-chain errors.
var (
	ErrNoChainFunds   = fault.New(fault.Unprocessable, "insufficient_onchain_funds", "insufficient on-chain funds in the node")
	ErrInvalidAddress = fault.New(fault.Unprocessable, "invalid_address", "Not a bitcoin address of the node's network")
	ErrUnknownChainTx = errors.New("transaction unknown to the node's wallet")
)
