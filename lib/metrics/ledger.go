package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The ledgers as the records name them (core/ledger's Ledger* values),
// and as the label ledger shows them.
var (
	recordLedgers = [...]string{"Internal", "Lightning", "Onchain"}
	ledgerLabels  = [...]string{"internal", "lightning", "onchain"}
)

// ledgerIndex is the index of a record's ledger in ledgerLabels, or -1.
func ledgerIndex(ledger string) int {
	for i, l := range recordLedgers {
		if l == ledger {
			return i
		}
	}
	return -1
}

// paymentBuckets span an internal payment (a millisecond) to an external
// one that takes the node's whole timeout, and an on-chain spend's block.
var paymentBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600}

// Ledger counts what the ledger committed in this process: payments and
// invoices as they reach their final status, their amounts, and how long
// each payment took from its request to its settlement. The ledger calls
// it where it publishes each event, after the commit.
type Ledger struct {
	paySettled, payFailed [len(ledgerLabels)]prometheus.Counter
	payAmount, payFee     [len(ledgerLabels)]prometheus.Counter
	payDuration           [len(ledgerLabels)]prometheus.Observer
	invSettled, invAmount [len(ledgerLabels)]prometheus.Counter
	invCreated            prometheus.Counter
}

func newLedger(reg prometheus.Registerer) *Ledger {
	payments := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hearth_payments_total",
		Help: "Payments that reached a final status (settled or failed), by ledger; a late success after a failure counts in both.",
	}, []string{"ledger", "status"})
	payAmount := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hearth_payments_amount_msat_total",
		Help: "The amounts of settled payments, in msat, by ledger (the fees apart).",
	}, []string{"ledger"})
	payFee := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hearth_payments_fee_msat_total",
		Help: "The fees of settled payments, in msat, by ledger.",
	}, []string{"ledger"})
	payDuration := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "hearth_payment_duration_seconds",
		Help:    "Time from a payment's request to its settlement, by ledger (an external payment's from its record).",
		Buckets: paymentBuckets,
	}, []string{"ledger"})
	invoices := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hearth_invoices_total",
		Help: "Invoices that reached a final status, by the ledger that paid them (an expiry is no event and is not counted).",
	}, []string{"ledger", "status"})
	invAmount := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hearth_invoices_amount_msat_total",
		Help: "The amounts received by settled invoices, in msat, by ledger.",
	}, []string{"ledger"})
	created := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "hearth_invoices_created_total",
		Help: "Invoices made (BOLT11 invoices of the node; on-chain deposits count when settled).",
	})
	reg.MustRegister(payments, payAmount, payFee, payDuration, invoices, invAmount, created)
	l := &Ledger{invCreated: created}
	for i, name := range ledgerLabels {
		l.paySettled[i] = payments.WithLabelValues(name, "settled")
		l.payFailed[i] = payments.WithLabelValues(name, "failed")
		l.payAmount[i] = payAmount.WithLabelValues(name)
		l.payFee[i] = payFee.WithLabelValues(name)
		l.payDuration[i] = payDuration.WithLabelValues(name)
		l.invSettled[i] = invoices.WithLabelValues(name, "settled")
		l.invAmount[i] = invAmount.WithLabelValues(name)
	}
	return l
}

// PaymentSettled counts a settled payment of ledger (a record's
// ledger: Internal, Lightning or Onchain) with its amount and fee in
// msat, took after its request.
func (l *Ledger) PaymentSettled(ledger string, amountMsat, feeMsat int64, took time.Duration) {
	i := ledgerIndex(ledger)
	if l == nil || i < 0 {
		return
	}
	l.paySettled[i].Inc()
	if amountMsat > 0 { // a counter only grows
		l.payAmount[i].Add(float64(amountMsat))
	}
	if feeMsat > 0 {
		l.payFee[i].Add(float64(feeMsat))
	}
	l.payDuration[i].Observe(max(took, 0).Seconds())
}

// PaymentFailed counts a failed payment of ledger.
func (l *Ledger) PaymentFailed(ledger string) {
	if i := ledgerIndex(ledger); l != nil && i >= 0 {
		l.payFailed[i].Inc()
	}
}

// InvoiceSettled counts a settled invoice of ledger that received
// amountMsat.
func (l *Ledger) InvoiceSettled(ledger string, amountMsat int64) {
	i := ledgerIndex(ledger)
	if l == nil || i < 0 {
		return
	}
	l.invSettled[i].Inc()
	if amountMsat > 0 {
		l.invAmount[i].Add(float64(amountMsat))
	}
}

// InvoiceCreated counts an invoice made.
func (l *Ledger) InvoiceCreated() {
	if l != nil {
		l.invCreated.Inc()
	}
}
