package cln

// The requests and answers of the low-level payment methods a keysend is
// sent with (keysend.go), as methods.go has them for the others: getroutes
// (methods.go) finds a route, askrene's layers leave out what failed,
// createonion wraps each hop's payload, sendonion hands the
// onion to the first hop, waitsendpay waits for the outcome
// (doc/schemas/lightning-*.json). Only the fields Hearth reads are decoded.

// keysendRoutes is getroutes' answer as v26.06 words it: each hop the
// channel (with its direction) to node_id_out, and what goes out over it,
// amount and expiry in blocks from now.
type keysendRoutes struct {
	Routes []struct {
		AmountMsat int64 `json:"amount_msat"`
		Path       []struct {
			SCIDDir       string `json:"short_channel_id_dir"`
			NodeIDOut     string `json:"node_id_out"`
			AmountOutMsat *int64 `json:"amount_out_msat"`
			CLTVOut       uint32 `json:"cltv_out"`
		} `json:"path"`
	} `json:"routes"`
}

// routeStep is one hop of a route as the onion needs it: the node reached
// through channel, the amount the HTLC into it carries, and its expiry in
// blocks from now.
type routeStep struct {
	ID         string
	Channel    string
	AmountMsat int64
	Delay      uint32
}

// A layer of askrene's that getroutes applies: the channels and nodes a
// keysend's earlier tries failed at, left out.
type askreneCreateLayerRequest struct {
	Layer string `json:"layer"`
}

func (askreneCreateLayerRequest) Name() string { return "askrene-create-layer" }

type askreneUpdateChannelRequest struct {
	Layer   string `json:"layer"`
	SCIDDir string `json:"short_channel_id_dir"`
	Enabled bool   `json:"enabled"`
}

func (askreneUpdateChannelRequest) Name() string { return "askrene-update-channel" }

type askreneDisableNodeRequest struct {
	Layer string `json:"layer"`
	Node  string `json:"node"`
}

func (askreneDisableNodeRequest) Name() string { return "askrene-disable-node" }

type askreneRemoveLayerRequest struct {
	Layer string `json:"layer"`
}

func (askreneRemoveLayerRequest) Name() string { return "askrene-remove-layer" }

// onionHop is one hop of createonion: the node and its payload, hex, with
// its length first.
type onionHop struct {
	Pubkey  string `json:"pubkey"`
	Payload string `json:"payload"`
}

type createonionRequest struct {
	Hops      []onionHop `json:"hops"`
	AssocData string     `json:"assocdata"`
}

func (createonionRequest) Name() string { return "createonion" }

type createonionResponse struct {
	Onion         string   `json:"onion"`
	SharedSecrets []string `json:"shared_secrets"`
}

// firstHop is sendonion's first_hop: the peer, what its HTLC carries, and
// its expiry in blocks from now.
type firstHop struct {
	ID         string `json:"id"`
	AmountMsat int64  `json:"amount_msat"`
	Delay      uint32 `json:"delay"`
}

type sendonionRequest struct {
	Onion         string   `json:"onion"`
	FirstHop      firstHop `json:"first_hop"`
	PaymentHash   string   `json:"payment_hash"`
	Label         string   `json:"label,omitempty"`
	SharedSecrets []string `json:"shared_secrets"`
	AmountMsat    int64    `json:"amount_msat"`
	Destination   string   `json:"destination"`
}

func (sendonionRequest) Name() string { return "sendonion" }

type waitsendpayRequest struct {
	PaymentHash string `json:"payment_hash"`
	Timeout     uint32 `json:"timeout"`
}

func (waitsendpayRequest) Name() string { return "waitsendpay" }

// sentPayment is waitsendpay's answer: the payment complete.
type sentPayment struct {
	Status          string `json:"status"`
	AmountMsat      int64  `json:"amount_msat"`
	AmountSentMsat  int64  `json:"amount_sent_msat"`
	PaymentPreimage string `json:"payment_preimage"`
}

// routingFailure is the data of sendonion's and waitsendpay's errors 203
// and 204: where along the route the payment failed, and why.
type routingFailure struct {
	ErringIndex     int    `json:"erring_index"`
	ErringNode      string `json:"erring_node"`
	ErringChannel   string `json:"erring_channel"`
	ErringDirection *int   `json:"erring_direction"`
	FailCode        int    `json:"failcode"`
	FailCodeName    string `json:"failcodename"`
}

// The codes of the payment methods' errors Hearth acts on
// (common/jsonrpc_errors.h).
const (
	codePayInProgress      = 200 // waitsendpay: timed out, the payment goes on
	codePayDestinationFail = 203 // the payee refused it for good
	codePayTryOtherRoute   = 204 // a hop failed it: another route may do
)
