package onchain

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/lib/poll"
)

// Addresses: the default type, reuse until used, one unused address per
// type, refusals, filters and paging, another wallet's, deletion.
func TestAddresses(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		k := newKit(t, db, Config{DefaultType: ledger.P2TR})
		alice, bob := k.wallet("alice"), k.wallet("bob")
		a := k.address(alice, "")
		if a.AddressType != ledger.P2TR || a.Used || a.WalletID != alice.WalletID || a.ID == "" || a.CreatedAt.IsZero() {
			t.Fatalf("default address = %+v", a)
		}
		if again := k.address(alice, "p2tr"); again.ID != a.ID {
			t.Fatalf("an unused address was not reused: %+v, %+v", a, again)
		}
		w := k.address(alice, "p2wpkh")
		s := k.address(alice, "p2sh")
		if w.AddressType != ledger.P2WPKH || s.AddressType != ledger.P2SH || w.Address == a.Address {
			t.Fatalf("typed addresses %+v %+v", w, s)
		}
		if b := k.address(bob, "p2wpkh"); b.Address == w.Address {
			t.Fatal("two wallets share an address")
		}
		bad := "p2wsh"
		if _, err := k.call(k.p, alice, "POST", "/v1/me/bitcoin/address", "", "", &AddressRequest{Type: &bad}); !isFault(err, fault.Invalid, "address type") {
			t.Fatalf("unknown type: %v", err)
		}
		legacy := "p2pkh"
		_, err := k.call(k.p, alice, "POST", "/v1/me/bitcoin/address", "", "", &AddressRequest{Type: &legacy})
		if !isFault(err, fault.Unprocessable, "Unsupported address type") {
			t.Fatalf("p2pkh: %v", err)
		}

		if got := k.list(alice, "order_direction=Asc"); !slices.Equal(got, []string{a.Address, w.Address, s.Address}) {
			t.Fatalf("list = %v", got)
		}
		if got := k.list(alice, "address_type=p2wpkh"); !slices.Equal(got, []string{w.Address}) {
			t.Fatalf("p2wpkh = %v", got)
		}
		if got := k.list(alice, "limit=1&offset=1"); !slices.Equal(got, []string{w.Address}) {
			t.Fatalf("page = %v", got)
		}
		if got := k.list(alice, "used=true"); len(got) != 0 {
			t.Fatalf("used = %v", got)
		}
		for _, q := range []string{"used=maybe", "address_type=p2wsh", "limit=0", "order_direction=Up"} {
			if _, err := k.call(k.p, alice, "GET", "/v1/me/bitcoin/addresses", "", q, nil); !isFault(err, fault.Invalid, "") {
				t.Errorf("%s: %v", q, err)
			}
		}
		if _, err := k.call(k.p, bob, "GET", "/v1/me/bitcoin/addresses/{id}", a.ID, "", nil); !isFault(err, fault.NotFound, "") {
			t.Fatalf("another wallet's address: %v", err)
		}
		if _, err := k.call(k.p, bob, "DELETE", "/v1/me/bitcoin/addresses/{id}", a.ID, "", nil); !isFault(err, fault.NotFound, "") {
			t.Fatalf("deleting another wallet's address: %v", err)
		}
		got, err := k.call(k.p, alice, "GET", "/v1/me/bitcoin/addresses/{id}", a.ID, "", nil)
		if err != nil || got.(*Address).Address != a.Address {
			t.Fatalf("get = %v, %v", got, err)
		}
		// Deleted: gone from the lists, never handed out again.
		if _, err := k.call(k.p, alice, "DELETE", "/v1/me/bitcoin/addresses/{id}", a.ID, "", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := k.call(k.p, alice, "GET", "/v1/me/bitcoin/addresses/{id}", a.ID, "", nil); !isFault(err, fault.NotFound, "") {
			t.Fatalf("a deleted address: %v", err)
		}
		if next := k.address(alice, ""); next.ID == a.ID {
			t.Fatal("a deleted address was handed out again")
		}
		// The admin: any wallet's, by wallet_id.
		admin := &host.Principal{UserID: "admin", WalletID: k.wallet("admin").WalletID, Admin: true}
		x, err := k.call(k.p, admin, "POST", "/v1/bitcoin/addresses", "", "", &AdminAddressRequest{WalletID: &bob.WalletID})
		if err != nil || x.(*Address).WalletID != bob.WalletID {
			t.Fatalf("admin's address = %v, %v", x, err)
		}
		all, err := k.call(k.p, admin, "GET", "/v1/bitcoin/addresses", "", "wallet_id="+bob.WalletID, nil)
		if err != nil || len(all.(*host.Listed).Rows.([]*Address)) != 2 {
			t.Fatalf("bob's addresses = %v, %v", all, err)
		}
		if _, err := k.call(k.p, admin, "POST", "/v1/bitcoin/addresses", "", "", &AdminAddressRequest{}); !isFault(err, fault.Invalid, "wallet_id") {
			t.Fatalf("no wallet_id: %v", err)
		}
	})
}

// A deposit shows at once, Pending, its address used (the next one is
// new); it is credited once at min_confirmations, whether the stream, a
// sync, or both at once, or another replica, see it.
func TestDeposit(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		k := newKit(t, db, Config{MinConfirmations: 2})
		alice := k.wallet("alice")
		a := k.address(alice, "")
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); k.p.Follow(ctx) }()
		defer func() { cancel(); <-done }()
		poll.Until(t, 10*time.Second, func() error { return k.subscribed() })

		k.chain.pay("tx1", a.Address, 50_000)
		var dep ledger.Invoice
		poll.Until(t, 10*time.Second, func() error {
			ds := k.deposits(alice)
			if len(ds) != 1 {
				return errorf("%d deposits", len(ds))
			}
			dep = ds[0]
			return nil
		})
		o := dep.BitcoinOutput
		if dep.Status != ledger.StatusPending || dep.Ledger != ledger.LedgerOnchain || o == nil || o.TxID != "tx1" || o.Vout != 1 ||
			o.Address != a.Address || o.AmountSat != 50_000 || o.BlockHeight != nil || o.Confirmations != 0 || dep.LnInvoice != nil {
			t.Fatalf("pending deposit = %+v %+v", dep, o)
		}
		if b := k.balance(alice); b.AvailableMsat != 0 || b.ReceivedMsat != 0 {
			t.Fatalf("an unconfirmed deposit was credited: %+v", b)
		}
		if got := k.list(alice, "used=true"); !slices.Equal(got, []string{a.Address}) {
			t.Fatalf("used = %v", got)
		}
		if next := k.address(alice, ""); next.ID == a.ID {
			t.Fatal("a used address was handed out again")
		}
		k.chain.mine() // one confirmation: not enough
		poll.Until(t, 10*time.Second, func() error {
			if o := k.deposits(alice)[0].BitcoinOutput; o.Confirmations != 1 || o.BlockHeight == nil || *o.BlockHeight != 501 {
				return errorf("output %+v", o)
			}
			return nil
		})
		if b := k.balance(alice); b.AvailableMsat != 0 {
			t.Fatalf("credited at one confirmation of two: %+v", b)
		}
		// Two confirmations: the stream's sync, a sync of ours and
		// another replica's, all at once.
		other := k.p
		if db.Dialect == store.Postgres {
			other = k.replica(storetest.Replica(t, db))
		}
		other.cfg.MinConfirmations = 2
		k.chain.mine()
		var wg sync.WaitGroup
		for i := range 6 {
			p := k.p
			if i%2 == 1 {
				p = other
			}
			wg.Go(func() {
				if _, err := p.Sync(context.Background()); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		poll.Until(t, 10*time.Second, func() error {
			if ds := k.deposits(alice); ds[0].Status != ledger.StatusSettled {
				return errorf("deposit %s", ds[0].Status)
			}
			return nil
		})
		r := k.sync(k.p)
		if r.SyncedHeight != 502 || r.OutputsSeen != 1 {
			t.Fatalf("sync = %+v", r)
		}
		ds := k.deposits(alice)
		if len(ds) != 1 || ds[0].Status != ledger.StatusSettled || *ds[0].AmountReceivedMsat != 50_000_000 || ds[0].BitcoinOutput.Confirmations != 2 {
			t.Fatalf("deposits = %+v", ds)
		}
		if b := k.balance(alice); b.AvailableMsat != 50_000_000 || b.ReceivedMsat != 50_000_000 {
			t.Fatalf("balance = %+v", b)
		}
		k.check()
	})
}

// A deposit confirmed while Hearth was down is credited at start, from
// the cursor rewound by the reorg buffer; restarts credit nothing twice.
// A deposit to a deleted address is credited too.
func TestDepositWhileDown(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		k := newKit(t, db, Config{ReorgBuffer: 3})
		alice := k.wallet("alice")
		a := k.address(alice, "")
		k.sync(k.p) // the cursor at 500
		if _, err := k.call(k.p, alice, "DELETE", "/v1/me/bitcoin/addresses/{id}", a.ID, "", nil); err != nil {
			t.Fatal(err)
		}
		k.chain.pay("tx1", a.Address, 70_000)
		k.chain.mine()
		k.chain.mine()
		for range 2 { // start, stop, start again
			k.p = New(Deps{DB: db, Ledger: serviceLedger{k.led}, Chain: k.chain, Config: Config{ReorgBuffer: 3}})
			synced := make(chan int64, 8)
			k.p.synced = func(h int64) { synced <- h }
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { defer close(done); k.p.Follow(ctx) }()
			select {
			case h := <-synced:
				if h != 502 {
					t.Fatalf("synced to %d", h)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no sync at start")
			}
			cancel()
			<-done
		}
		k.chain.mu.Lock()
		lists := slices.Clone(k.chain.lists)
		k.chain.mu.Unlock()
		if !slices.Equal(lists, []int64{0, 497, 499}) {
			t.Fatalf("listed from %v, want the cursor less the reorg buffer each start", lists)
		}
		ds := k.deposits(alice)
		if len(ds) != 1 || ds[0].Status != ledger.StatusSettled {
			t.Fatalf("deposits = %+v", ds)
		}
		if b := k.balance(alice); b.AvailableMsat != 70_000_000 {
			t.Fatalf("balance = %+v", b)
		}
		k.check()
	})
}

// A deposit whose block is reorganised away before it is credited goes
// back to Pending, unconfirmed; confirmed again, it is credited once.
func TestDepositReorganised(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		k := newKit(t, db, Config{MinConfirmations: 2})
		alice := k.wallet("alice")
		a := k.address(alice, "")
		k.chain.pay("tx1", a.Address, 10_000)
		k.chain.mine()
		k.sync(k.p)
		if o := k.deposits(alice)[0].BitcoinOutput; o.BlockHeight == nil || o.Confirmations != 1 {
			t.Fatalf("output %+v", o)
		}
		k.chain.reorg()
		k.sync(k.p)
		if d := k.deposits(alice)[0]; d.Status != ledger.StatusPending || d.BitcoinOutput.BlockHeight != nil || d.BitcoinOutput.Confirmations != 0 {
			t.Fatalf("reorganised deposit %+v %+v", d, d.BitcoinOutput)
		}
		// Another deposit, mined, then gone from the wallet (double-spent
		// in the reorganisation): Pending, in no block.
		k.chain.pay("tx2", a.Address, 20_000)
		k.chain.mine()
		k.sync(k.p)
		k.chain.drop("tx2")
		k.chain.mine()
		k.sync(k.p)
		ds := k.deposits(alice)
		if d := ds[1]; len(ds) != 2 || d.Status != ledger.StatusPending || d.BitcoinOutput.BlockHeight != nil || d.BitcoinOutput.Confirmations != 0 {
			t.Fatalf("vanished deposit %+v %+v", d, d.BitcoinOutput)
		}
		k.sync(k.p)
		if d := k.deposits(alice)[0]; d.Status != ledger.StatusSettled || *d.BitcoinOutput.BlockHeight != 501 {
			t.Fatalf("deposit %+v %+v", d, d.BitcoinOutput)
		}
		if b := k.balance(alice); b.AvailableMsat != 10_000_000 {
			t.Fatalf("balance = %+v", b)
		}
		k.check()
	})
}

// Without an on-chain wallet every route answers the clear 422.
func TestNoOnchainWallet(t *testing.T) {
	t.Parallel()
	db := storetest.SQLite(t)
	k := newKit(t, db, Config{})
	k.p = New(Deps{DB: db, Ledger: serviceLedger{k.led}})
	alice := k.wallet("alice")
	admin := &host.Principal{UserID: "admin", WalletID: alice.WalletID, Admin: true}
	for _, rt := range k.p.Builtin().Routes {
		var body any
		switch rt.Body.(type) {
		case AddressRequest:
			body = &AddressRequest{}
		case AdminAddressRequest:
			body = &AdminAddressRequest{WalletID: &alice.WalletID}
		}
		caller := alice
		if rt.Access == host.Admin {
			caller = admin
		}
		_, err := k.call(k.p, caller, rt.Method, rt.Path, "0191e5b4-0000-7000-8000-000000000000", "", body)
		if !isFault(err, fault.Unprocessable, "the on-chain wallet needs an lnd or cln node") {
			t.Errorf("%s %s: %v", rt.Method, rt.Path, err)
		}
	}
}

// subscribed reports whether the plugin follows the fake chain's stream.
func (k *kit) subscribed() error {
	k.chain.mu.Lock()
	defer k.chain.mu.Unlock()
	if len(k.chain.subs) == 0 {
		return errorf("not subscribed")
	}
	return nil
}
