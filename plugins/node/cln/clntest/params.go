package clntest

// The parameters of each method the double serves, from the request
// schemas of Core Lightning v24.11 (doc/schemas/lightning-<method>.json).

// schemas lists, per method, its parameters in their positional order.
var schemas = map[string][]param{
	"getinfo":   {},
	"listfunds": {{name: "spent", kind: tBool}},
	"invoice": {
		{name: "amount_msat", kind: tMsatOrAny, required: true},
		{name: "label", kind: tLabel, required: true},
		{name: "description", kind: tString, required: true},
		{name: "expiry", kind: tU64},
		{name: "fallbacks", kind: tArray},
		{name: "preimage", kind: tHex},
		{name: "exposeprivatechannels", kind: tArray},
		{name: "cltv", kind: tU32},
		{name: "deschashonly", kind: tBool},
	},
	"listinvoices": {
		{name: "label", kind: tLabel},
		{name: "invstring", kind: tString},
		{name: "payment_hash", kind: tHash},
		{name: "offer_id", kind: tString},
		{name: "index", kind: tString, enum: []string{"created", "updated"}},
		{name: "start", kind: tU64},
		{name: "limit", kind: tU32},
	},
	"delinvoice": {
		{name: "label", kind: tLabel, required: true},
		{name: "status", kind: tString, required: true, enum: []string{"paid", "expired", "unpaid"}},
		{name: "desconly", kind: tBool},
	},
	"xpay": {
		{name: "invstring", kind: tString, required: true},
		{name: "amount_msat", kind: tMsat},
		{name: "maxfee", kind: tMsat},
		{name: "layers", kind: tArray},
		{name: "retry_for", kind: tU32},
		{name: "partial_msat", kind: tMsat},
	},
	"getroutes": {
		{name: "source", kind: tPubkey, required: true},
		{name: "destination", kind: tPubkey, required: true},
		{name: "amount_msat", kind: tMsat, required: true},
		{name: "layers", kind: tArray, required: true},
		{name: "maxfee_msat", kind: tMsat, required: true},
		{name: "final_cltv", kind: tU32, required: true},
	},
	"newaddr":          {{name: "addresstype", kind: tString, enum: []string{"bech32", "p2tr", "all"}}},
	"listtransactions": {},
	"txprepare": {
		{name: "outputs", kind: tArray, required: true},
		{name: "feerate", kind: tFeerate},
		{name: "minconf", kind: tU32},
		{name: "utxos", kind: tArray},
	},
	"signpsbt":        {{name: "psbt", kind: tString, required: true}, {name: "signonly", kind: tArray}},
	"sendpsbt":        {{name: "psbt", kind: tString, required: true}, {name: "reserve", kind: tU32}},
	"unreserveinputs": {{name: "psbt", kind: tString, required: true}, {name: "reserve", kind: tU32}},
	"datastore": {
		{name: "key", kind: tArray, required: true},
		{name: "string", kind: tString},
		{name: "hex", kind: tHex},
		{name: "mode", kind: tString, enum: []string{"must-create", "must-replace", "create-or-replace", "must-append", "create-or-append"}},
		{name: "generation", kind: tU64},
	},
	"listdatastore":   {{name: "key", kind: tArray}},
	"deldatastore":    {{name: "key", kind: tArray, required: true}, {name: "generation", kind: tU64}},
	"waitblockheight": {{name: "blockheight", kind: tU32, required: true}, {name: "timeout", kind: tU32}},
	"listpays":        listPaysParams,
	"listsendpays":    listPaysParams,
	"wait": {
		{name: "subsystem", kind: tString, required: true, enum: []string{"invoices", "forwards", "sendpays"}},
		{name: "indexname", kind: tString, required: true, enum: []string{"created", "updated", "deleted"}},
		{name: "nextvalue", kind: tU64, required: true},
	},
}

var listPaysParams = []param{
	{name: "bolt11", kind: tString},
	{name: "payment_hash", kind: tHash},
	{name: "status", kind: tString, enum: []string{"pending", "complete", "failed"}},
	{name: "index", kind: tString, enum: []string{"created", "updated"}},
	{name: "start", kind: tU64},
	{name: "limit", kind: tU32},
}
