// Package rates is the built-in exchange-rates plugin ([rates]): the price
// of the bitcoin in the currencies the operator offers, read from public
// price sources (Kraken, Bitstamp, Coinbase, mempool.space, yadio) through
// the outbound guard, or set by hand (fixed). It gives the ledger its rates
// (ledger:prices), so that users may ask for and read amounts in a
// currency, and serves them at GET /v1/rates.
//
// A rate is the median price of the sources that answered its last
// reading, written as sat per unit of the currency (lib/fiat); a source
// that fails, or that strays from the median by more than max_deviation,
// is left out and counted (hearth_rates_source_total). Sources are read
// when a rate is first asked for, again in the background once it is older
// than refresh, and a rate older than max_age is never used: amounts in
// its currency are refused (503 rates_unavailable) until a source answers.
// Nothing is read while nobody asks: an instance whose users never price
// in a currency makes no request.
package rates
