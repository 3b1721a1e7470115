package sdk

// Emitted is an event a plugin adds to the outbox (Emit).
type Emitted struct {
	// Type is one of the types the manifest's "emits" lists: the
	// plugin's name, a dot and a word (tipjar.thanked).
	Type string `json:"type"`
	// WalletID is the wallet the event is of (whose webhooks and event
	// stream get it): the plugin's bound wallet, or any with events:all.
	WalletID string `json:"wallet_id"`
	// SubjectID is what the event is about: the id of the plugin's record.
	SubjectID string `json:"subject_id"`
	// Data is the event's data: a JSON object, 16 KiB at most.
	Data any `json:"data"`
}

// Emit adds e to the outbox, in a transaction of its own: webhooks, the
// wallet's event stream and the plugins that subscribe to its type get it
// as they get the ledger's events, in one order with them.
func Emit(e Emitted) error { return call(opEmit, e, nil) }
