package onchain

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/host"
)

// fakeChain is an on-chain wallet in memory: addresses it hands out, the
// transactions paying them, a tip, and a stream of what changes. LND on
// regtest is the real one (cmd/hearth's tests); this one lets a test
// reorganise the chain and count calls.
type fakeChain struct {
	mu    sync.Mutex
	n     int
	tip   int64
	txs   []ledger.ChainTx
	subs  []chan ledger.ChainEvent
	lists []int64 // the fromHeight of every ChainTransactions
}

func (c *fakeChain) Spends() bool { return false }

func (c *fakeChain) NewAddress(_ context.Context, typ ledger.AddressType) (string, error) {
	if typ == ledger.P2PKH {
		return "", ledger.ErrUnsupportedAddressType
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return fmt.Sprintf("bcrt1%s%04d", typ, c.n), nil
}

func (c *fakeChain) ChainTransactions(_ context.Context, from int64) (int64, []ledger.ChainTx, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lists = append(c.lists, from)
	var out []ledger.ChainTx
	for _, tx := range c.txs {
		if tx.BlockHeight == 0 || tx.BlockHeight >= from {
			if tx.BlockHeight > 0 {
				tx.Confirmations = c.tip - tx.BlockHeight + 1
			}
			out = append(out, tx)
		}
	}
	return c.tip, out, nil
}

func (c *fakeChain) SubscribeChain(ctx context.Context) (<-chan ledger.ChainEvent, error) {
	ch := make(chan ledger.ChainEvent, 16)
	c.mu.Lock()
	c.subs = append(c.subs, ch)
	c.mu.Unlock()
	go func() {
		<-ctx.Done()
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, s := range c.subs {
			if s == ch {
				c.subs = append(c.subs[:i], c.subs[i+1:]...)
				close(ch)
				return
			}
		}
	}()
	return ch, nil
}

// notify sends ev to every subscriber. The caller holds mu.
func (c *fakeChain) notify(ev ledger.ChainEvent) {
	for _, s := range c.subs {
		s <- ev
	}
}

// pay adds an unconfirmed transaction paying sat to addr.
func (c *fakeChain) pay(txid, addr string, sat int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tx := ledger.ChainTx{TxID: txid, Outputs: []ledger.ChainOutput{{Vout: 0, Address: "bcrt1qsomeoneelse", AmountSat: 999}, {Vout: 1, Address: addr, AmountSat: sat}}}
	c.txs = append(c.txs, tx)
	c.notify(ledger.ChainEvent{Tx: &tx})
}

// mine adds a block confirming every unconfirmed transaction.
func (c *fakeChain) mine() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tip++
	for i := range c.txs {
		if c.txs[i].BlockHeight == 0 {
			c.txs[i].BlockHeight = c.tip
		}
	}
	c.notify(ledger.ChainEvent{Height: c.tip})
}

// reorg drops the last block: its transactions go back to the mempool.
func (c *fakeChain) reorg() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.txs {
		if c.txs[i].BlockHeight == c.tip {
			c.txs[i].BlockHeight, c.txs[i].Confirmations = 0, 0
		}
	}
	c.tip--
}

// drop forgets a transaction, as a wallet does when it was double-spent.
func (c *fakeChain) drop(txid string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.txs = slices.DeleteFunc(c.txs, func(tx ledger.ChainTx) bool { return tx.TxID == txid })
}

// kit is the plugin over a real ledger on db and a fake chain.
type kit struct {
	t     *testing.T
	db    *store.DB
	led   *ledger.Service
	chain *fakeChain
	p     *Plugin
}

func newKit(t *testing.T, db *store.DB, cfg Config) *kit {
	k := &kit{t: t, db: db, led: ledger.New(db, nil, nil, ledger.Config{}, nil), chain: &fakeChain{tip: 500}}
	k.p = New(Deps{DB: db, Ledger: serviceLedger{k.led}, Chain: k.chain, Config: cfg})
	return k
}

// replica is another plugin over the same chain and database (another
// connection pool on PostgreSQL).
func (k *kit) replica(db *store.DB) *Plugin {
	return New(Deps{DB: db, Ledger: serviceLedger{ledger.New(db, nil, nil, ledger.Config{}, nil)}, Chain: k.chain})
}

func (k *kit) wallet(user string) *host.Principal {
	k.t.Helper()
	w, err := wallet.NewService(k.db).Ensure(context.Background(), user)
	if err != nil {
		k.t.Fatal(err)
	}
	return &host.Principal{UserID: user, WalletID: w.ID, Scopes: auth.AllScopes}
}

// call runs the route method path (as declared) as caller.
func (k *kit) call(p *Plugin, caller *host.Principal, method, path, id, query string, body any) (any, error) {
	k.t.Helper()
	q, err := url.ParseQuery(query)
	if err != nil {
		k.t.Fatal(err)
	}
	for _, rt := range p.Builtin().Routes {
		if rt.Method != method || rt.Path != path {
			continue
		}
		req := &host.BuiltinRequest{Caller: caller, Params: map[string]string{"id": id}, Query: q}
		if rt.Body != nil {
			req.Body = body
		}
		return rt.Handle(context.Background(), req)
	}
	k.t.Fatalf("no route %s %s", method, path)
	return nil, nil
}

// address asks for a deposit address of caller's wallet; typ "" for the
// default.
func (k *kit) address(caller *host.Principal, typ string) *Address {
	k.t.Helper()
	body := &AddressRequest{}
	if typ != "" {
		body.Type = &typ
	}
	a, err := k.call(k.p, caller, "POST", "/v1/me/bitcoin/address", "", "", body)
	if err != nil {
		k.t.Fatalf("address %q: %v", typ, err)
	}
	return a.(*Address)
}

func (k *kit) list(caller *host.Principal, query string) []string {
	k.t.Helper()
	as, err := k.call(k.p, caller, "GET", "/v1/me/bitcoin/addresses", "", query, nil)
	if err != nil {
		k.t.Fatal(err)
	}
	var out []string
	for _, a := range as.(*host.Listed).Rows.([]*Address) {
		out = append(out, a.Address)
	}
	return out
}

func (k *kit) sync(p *Plugin) *SyncResult {
	k.t.Helper()
	r, err := p.Sync(context.Background())
	if err != nil {
		k.t.Fatal(err)
	}
	return r
}

// deposits returns caller's Onchain invoices, oldest first.
func (k *kit) deposits(caller *host.Principal) []ledger.Invoice {
	k.t.Helper()
	invs, err := k.led.Invoices(context.Background(), ledger.Filter{WalletID: caller.WalletID, Ledger: ledger.LedgerOnchain, Page: store.Page{Asc: true}})
	if err != nil {
		k.t.Fatal(err)
	}
	return invs
}

func (k *kit) balance(caller *host.Principal) wallet.Balance {
	k.t.Helper()
	w, err := wallet.NewService(k.db).Get(context.Background(), caller.WalletID)
	if err != nil {
		k.t.Fatal(err)
	}
	return w.Balance
}

// check fails the test on any ledger breach.
func (k *kit) check() {
	k.t.Helper()
	bs, err := k.led.Check(context.Background())
	if err != nil {
		k.t.Fatal(err)
	}
	for _, b := range bs {
		k.t.Errorf("ledger breach: %+v", b)
	}
}

// isFault reports whether err is a fault of kind whose reason contains
// reason.
func isFault(err error, kind fault.Kind, reason string) bool {
	f, ok := fault.As(err)
	return ok && f.Kind == kind && strings.Contains(f.Reason, reason)
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// serviceLedger is the plugin's Ledger straight over the ledger's service,
// for the tests of the plugin's own logic (in the server it is the host
// API bound to the plugin, capability-checked).
type serviceLedger struct{ *ledger.Service }

func (l serviceLedger) Receive(ctx context.Context, walletID string, req ledger.NewInvoice) (*ledger.Invoice, error) {
	return l.CreateInvoice(ctx, walletID, req)
}
