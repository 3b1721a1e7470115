package cln

// The requests and answers of the methods Hearth calls, as Core Lightning
// v24.11 defines them (doc/schemas/lightning-*.json): each request is a
// jrpc2.Method whose fields are the named params; optional params are
// omitted when unset. Only the fields Hearth reads are decoded.

type getinfoRequest struct{}

func (getinfoRequest) Name() string { return "getinfo" }

type getinfoResponse struct {
	ID                  string `json:"id"`
	Alias               string `json:"alias"`
	Network             string `json:"network"`
	Blockheight         uint32 `json:"blockheight"`
	NumActiveChannels   int    `json:"num_active_channels"`
	Version             string `json:"version"`
	WarningBitcoindSync string `json:"warning_bitcoind_sync"`
	WarningLightningd   string `json:"warning_lightningd_sync"`
}

type listfundsRequest struct{}

func (listfundsRequest) Name() string { return "listfunds" }

type listfundsResponse struct {
	Outputs []struct {
		TxID       string `json:"txid"`
		Output     uint32 `json:"output"`
		AmountMsat int64  `json:"amount_msat"`
		Status     string `json:"status"` // unconfirmed, confirmed, spent, immature
	} `json:"outputs"`
	Channels []struct {
		State         string `json:"state"`
		OurAmountMsat int64  `json:"our_amount_msat"`
		AmountMsat    int64  `json:"amount_msat"`
	} `json:"channels"`
}

type invoiceRequest struct {
	AmountMsat   int64  `json:"amount_msat"`
	Label        string `json:"label"`
	Description  string `json:"description"`
	Expiry       uint64 `json:"expiry,omitempty"`
	Preimage     string `json:"preimage,omitempty"`
	DescHashOnly bool   `json:"deschashonly,omitempty"`
}

func (invoiceRequest) Name() string { return "invoice" }

type invoiceResponse struct {
	Bolt11        string `json:"bolt11"`
	PaymentHash   string `json:"payment_hash"`
	PaymentSecret string `json:"payment_secret"`
	ExpiresAt     int64  `json:"expires_at"`
}

type listinvoicesRequest struct {
	PaymentHash string `json:"payment_hash,omitempty"`
	Index       string `json:"index,omitempty"`
	Start       uint64 `json:"start,omitempty"`
}

func (listinvoicesRequest) Name() string { return "listinvoices" }

type listedInvoice struct {
	Label              string `json:"label"`
	PaymentHash        string `json:"payment_hash"`
	Status             string `json:"status"` // unpaid, paid, expired
	UpdatedIndex       uint64 `json:"updated_index"`
	AmountReceivedMsat int64  `json:"amount_received_msat"`
	PaidAt             int64  `json:"paid_at"`
	PaymentPreimage    string `json:"payment_preimage"`
}

type listinvoicesResponse struct {
	Invoices []listedInvoice `json:"invoices"`
}

type delinvoiceRequest struct {
	Label  string `json:"label"`
	Status string `json:"status"`
}

func (delinvoiceRequest) Name() string { return "delinvoice" }

type waitRequest struct {
	Subsystem string `json:"subsystem"`
	IndexName string `json:"indexname"`
	NextValue uint64 `json:"nextvalue"`
}

func (waitRequest) Name() string { return "wait" }

type waitResponse struct {
	Created uint64 `json:"created"`
	Updated uint64 `json:"updated"`
	Deleted uint64 `json:"deleted"`
}

type xpayRequest struct {
	Invstring  string `json:"invstring"`
	AmountMsat int64  `json:"amount_msat,omitempty"`
	MaxFee     *int64 `json:"maxfee,omitempty"`
	RetryFor   uint32 `json:"retry_for,omitempty"`
}

func (xpayRequest) Name() string { return "xpay" }

type xpayResponse struct {
	PaymentPreimage string `json:"payment_preimage"`
	AmountMsat      int64  `json:"amount_msat"`
	AmountSentMsat  int64  `json:"amount_sent_msat"`
}

type listpaysRequest struct {
	PaymentHash string `json:"payment_hash,omitempty"`
}

func (listpaysRequest) Name() string { return "listpays" }

type listpaysResponse struct {
	Pays []struct {
		PaymentHash    string `json:"payment_hash"`
		Status         string `json:"status"` // pending, failed, complete
		AmountMsat     int64  `json:"amount_msat"`
		AmountSentMsat int64  `json:"amount_sent_msat"`
		Preimage       string `json:"preimage"`
	} `json:"pays"`
}

type listsendpaysRequest struct {
	Index string `json:"index,omitempty"`
	Start uint64 `json:"start,omitempty"`
}

func (listsendpaysRequest) Name() string { return "listsendpays" }

type listsendpaysResponse struct {
	Payments []struct {
		PaymentHash  string `json:"payment_hash"`
		Status       string `json:"status"`
		UpdatedIndex uint64 `json:"updated_index"`
	} `json:"payments"`
}

type getroutesRequest struct {
	Source      string   `json:"source"`
	Destination string   `json:"destination"`
	AmountMsat  int64    `json:"amount_msat"`
	Layers      []string `json:"layers"`
	MaxFeeMsat  int64    `json:"maxfee_msat"`
	FinalCLTV   uint32   `json:"final_cltv"`
	MaxParts    uint32   `json:"maxparts,omitempty"` // v25.09 and newer
}

func (getroutesRequest) Name() string { return "getroutes" }

type getroutesResponse struct {
	Routes []struct {
		AmountMsat int64      `json:"amount_msat"`
		Path       []routeHop `json:"path"`
	} `json:"routes"`
}

// routeHop is one hop of a getroutes route: what is sent into it is
// amount_in_msat, and in older lightningd amount_msat (deprecated, and
// absent from v26's answers).
type routeHop struct {
	AmountInMsat *int64 `json:"amount_in_msat"`
	AmountMsat   *int64 `json:"amount_msat"`
}

// sent is what the hop is sent, in whichever field the node named it.
func (h routeHop) sent() (int64, bool) {
	switch {
	case h.AmountInMsat != nil:
		return *h.AmountInMsat, true
	case h.AmountMsat != nil:
		return *h.AmountMsat, true
	}
	return 0, false
}

type newaddrRequest struct {
	AddressType string `json:"addresstype,omitempty"`
}

func (newaddrRequest) Name() string { return "newaddr" }

type newaddrResponse struct {
	Bech32 string `json:"bech32"`
	P2TR   string `json:"p2tr"`
}

type listtransactionsRequest struct{}

func (listtransactionsRequest) Name() string { return "listtransactions" }

type listtransactionsResponse struct {
	Transactions []struct {
		Hash        string `json:"hash"`
		Blockheight uint32 `json:"blockheight"`
		Outputs     []struct {
			Index        uint32 `json:"index"`
			AmountMsat   int64  `json:"amount_msat"`
			ScriptPubKey string `json:"scriptPubKey"`
		} `json:"outputs"`
	} `json:"transactions"`
}

type waitblockheightRequest struct {
	Blockheight uint32 `json:"blockheight"`
	Timeout     uint32 `json:"timeout"`
}

func (waitblockheightRequest) Name() string { return "waitblockheight" }

type waitblockheightResponse struct {
	Blockheight uint32 `json:"blockheight"`
}

type txprepareRequest struct {
	Outputs []map[string]string `json:"outputs"`
	Feerate string              `json:"feerate,omitempty"`
	Minconf uint32              `json:"minconf"`
}

func (txprepareRequest) Name() string { return "txprepare" }

type txprepareResponse struct {
	PSBT       string `json:"psbt"`
	UnsignedTx string `json:"unsigned_tx"`
	TxID       string `json:"txid"`
}

type signpsbtRequest struct {
	PSBT string `json:"psbt"`
}

func (signpsbtRequest) Name() string { return "signpsbt" }

type signpsbtResponse struct {
	SignedPSBT string `json:"signed_psbt"`
}

type sendpsbtRequest struct {
	PSBT string `json:"psbt"`
}

func (sendpsbtRequest) Name() string { return "sendpsbt" }

type unreserveinputsRequest struct {
	PSBT string `json:"psbt"`
}

func (unreserveinputsRequest) Name() string { return "unreserveinputs" }

// datastoreRequest keeps a string under key in lightningd's datastore.
type datastoreRequest struct {
	Key    []string `json:"key"`
	String string   `json:"string"`
	Mode   string   `json:"mode"`
}

func (datastoreRequest) Name() string { return "datastore" }

type listdatastoreRequest struct {
	Key []string `json:"key"`
}

func (listdatastoreRequest) Name() string { return "listdatastore" }

type listdatastoreResponse struct {
	Datastore []struct {
		Key    []string `json:"key"`
		String *string  `json:"string"`
	} `json:"datastore"`
}

type deldatastoreRequest struct {
	Key []string `json:"key"`
}

func (deldatastoreRequest) Name() string { return "deldatastore" }

// signinvoiceRequest has lightningd sign a BOLT11 invoice it keeps no
// record of.
type signinvoiceRequest struct {
	InvString string `json:"invstring"`
}

func (signinvoiceRequest) Name() string { return "signinvoice" }

type pluginStartRequest struct {
	Subcommand string `json:"subcommand"`
	Plugin     string `json:"plugin"`
}

func (pluginStartRequest) Name() string { return "plugin" }
