package scale

import (
	"strconv"
	"strings"
)

// The scale phase's books are written by SQL, a million slots a statement,
// shaped as the ledger writes its rows. Slot k (1…N) holds one invoice and
// one payment, k's remainder by 100 saying what they are:
//
//   - 0–89: an internal payment, payer (k + k/100)%50 (so that each payer
//     makes every kind of payment) paying payee (k/50)%50 an
//     invoice of a (1,000–100,999 msat): the invoice Settled, Internal,
//     and the payment the same, with the invoice's hash, text and preimage;
//   - 90–93: a Lightning payment out (fee a/200 + 1 sat), and a payer
//     funded from outside (2,000,000 msat, a Lightning invoice settled);
//   - 94–97: a Lightning payment that failed, and an invoice never paid
//     (Pending, long expired);
//   - 98: an on-chain spend (fee 150 sat), and an on-chain deposit to a
//     payee (10 a);
//   - 99: a Lightning payment out with an Idempotency-Key (Pending, its
//     reserve held, in one slot of 10,000), and a payee paid from outside.
//
// Event ids are as the ledger gives them: 4k+2 for the payment (Settled or
// Failed), 4k+1 for an invoice settled otherwise than by an internal
// payment; an internally paid invoice has none of its own on PostgreSQL
// (its payment's, migration 20261126000001) and 4k+1 on SQLite. Four in
// five payments name their payer's API key. Slot k is at t0 + k·step,
// its invoice 20 seconds before its payment.
//
// The placeholders: $1 t0 and $2 the step, in microseconds (t0 odd and the
// step even: no time ends in a zero, which SQLite's text would drop), $3 and $4 the
// first and last slot, $5 the payers', $6 the payees' wallet ids and $7
// the payers' API key ids (arrays on PostgreSQL; on SQLite texts of the
// ids, each 36 characters, joined by commas), $8 the number of payers.

// seedColumns are the columns both dialects' statements write, the
// invoices' then the payments'.
const (
	seedInvoiceColumns = `id, wallet_id, description, amount_msat, amount_received_msat, status, ledger, fee_msat, payment_time,
  bolt11, payment_hash, payment_secret, payment_preimage, payee_pubkey, min_final_cltv_expiry_delta, expiry, expires_at,
  created_at, updated_at, event_id, btc_txid, btc_vout, btc_address, btc_amount_sat, btc_block_height, btc_confirmations`
	seedPaymentColumns = `id, wallet_id, amount_msat, fee_msat, reserved_msat, status, ledger, error, description, payment_time,
  payment_hash, payment_preimage, bolt11, idempotency_key, request_hash, created_at, updated_at, event_id,
  btc_address, btc_txid, api_key_id`
)

// seedInvoiceValues and seedPaymentValues are the rows of a slot, over the
// slot's derived values (seedSlot): k, r, a, t, ti (the invoice's time),
// payer, payee, fundee, key, the hash h, preimage pre, secret sec, the
// invoice's text bolt, the outside invoice's xbolt and hash xh, txid.
const (
	seedInvoiceValues = `{id:i}, CASE WHEN r BETWEEN 90 AND 93 THEN fundee ELSE payee END, 'Order #' || k,
  CASE WHEN r BETWEEN 90 AND 93 THEN 2000000 WHEN r = 98 THEN a * 10 ELSE a END,
  CASE WHEN r BETWEEN 94 AND 97 THEN NULL WHEN r BETWEEN 90 AND 93 THEN 2000000 WHEN r = 98 THEN a * 10 ELSE a END,
  CASE WHEN r BETWEEN 94 AND 97 THEN 'Pending' ELSE 'Settled' END,
  CASE WHEN r < 90 THEN 'Internal' WHEN r = 98 THEN 'Onchain' ELSE 'Lightning' END,
  CASE WHEN r BETWEEN 94 AND 97 THEN NULL ELSE 0 END,
  CASE WHEN r BETWEEN 94 AND 97 THEN NULL ELSE t END,
  CASE WHEN r = 98 THEN 'onchain:' || txid || ':0' ELSE bolt END, h,
  CASE WHEN r = 98 THEN '' ELSE sec END, CASE WHEN r = 98 THEN NULL ELSE pre END,
  CASE WHEN r = 98 THEN '' ELSE '03a1ce0000000000000000000000000000000000000000000000000000000000aa' END,
  CASE WHEN r = 98 THEN 0 ELSE 80 END, CASE WHEN r = 98 THEN 0 ELSE 43200 END,
  CASE WHEN r = 98 THEN {far} ELSE {ti_plus_12h} END,
  ti, CASE WHEN r BETWEEN 94 AND 97 THEN NULL ELSE t END,
  CASE WHEN r BETWEEN 94 AND 97 THEN NULL WHEN r < 90 THEN {internal_event} ELSE 4 * k + 1 END,
  CASE WHEN r = 98 THEN txid END, CASE WHEN r = 98 THEN 0 END,
  CASE WHEN r = 98 THEN 'bcrt1q' || substr(h, 1, 38) END, CASE WHEN r = 98 THEN a / 100 END,
  CASE WHEN r = 98 THEN 800000 END, CASE WHEN r = 98 THEN 6 END`
	seedPaymentValues = `{id:p}, payer, a,
  CASE WHEN r < 90 THEN 0 WHEN r BETWEEN 94 AND 97 THEN NULL WHEN r = 98 THEN 150000
       WHEN r = 99 AND k % 10000 = 99 THEN NULL ELSE a / 200 + 1000 END,
  CASE WHEN r = 99 AND k % 10000 = 99 THEN a + 5000 ELSE 0 END,
  CASE WHEN r BETWEEN 94 AND 97 THEN 'Failed' WHEN r = 99 AND k % 10000 = 99 THEN 'Pending' ELSE 'Settled' END,
  CASE WHEN r < 90 THEN 'Internal' WHEN r = 98 THEN 'Onchain' ELSE 'Lightning' END,
  CASE WHEN r BETWEEN 94 AND 97 THEN 'no route' END, 'Order #' || k,
  CASE WHEN r BETWEEN 94 AND 97 OR (r = 99 AND k % 10000 = 99) THEN NULL ELSE t END,
  CASE WHEN r < 90 THEN h WHEN r = 98 THEN NULL ELSE xh END,
  CASE WHEN r < 90 THEN pre WHEN r BETWEEN 90 AND 93 OR (r = 99 AND k % 10000 <> 99) THEN sec END,
  CASE WHEN r < 90 THEN bolt WHEN r = 98 THEN NULL ELSE xbolt END,
  CASE WHEN r = 99 THEN 'order-' || k END, '0000000000000000000000000000000000000000000000000000000000000000',
  t, CASE WHEN r = 99 AND k % 10000 = 99 THEN NULL ELSE t END,
  CASE WHEN r = 99 AND k % 10000 = 99 THEN NULL ELSE 4 * k + 2 END,
  CASE WHEN r = 98 THEN 'bcrt1q' || substr(xh, 1, 38) END, CASE WHEN r = 98 THEN txid END,
  CASE WHEN k % 5 <> 0 THEN key END`
)

// seedPostgres is one chunk's statement on PostgreSQL, of table
// ("invoices" or "payments"): generate_series, md5 for the random-looking
// texts.
func seedPostgres(table string) string {
	slot := `SELECT k, k % 100 AS r, 1000 + (k * 7919) % 100000 AS a,
    $1::bigint + k * $2::bigint AS t_us, $1::bigint + k * $2::bigint - 20000000 AS ti_us,
    timestamptz 'epoch' + ($1::bigint + k * $2::bigint) * interval '1 microsecond' AS t,
    timestamptz 'epoch' + ($1::bigint + k * $2::bigint - 20000000) * interval '1 microsecond' AS ti,
    ($5::text[])[(k + k / 100) % $8 + 1] AS payer, ($6::text[])[(k / $8) % $8 + 1] AS payee,
    ($5::text[])[(k / 100) % $8 + 1] AS fundee, ($7::text[])[(k + k / 100) % $8 + 1] AS key,
    md5(k || 'h') || md5(k || 'H') AS h, md5(k || 'p') || md5(k || 'P') AS pre, md5(k || 's') || md5(k || 'S') AS sec,
    'lnbcrt' || (1000 + (k * 7919) % 100000) / 1000 || 'n1p' || md5(k || 'a') || md5(k || 'b') || md5(k || 'c') || md5(k || 'd')
      || md5(k || 'e') || md5(k || 'f') || md5(k || 'g') || md5(k || 'i') AS bolt,
    md5(k || 'x') || md5(k || 'X') AS xh,
    'lnbcrt' || (1000 + (k * 7919) % 100000) / 1000 || 'n1p' || md5(k || 'xa') || md5(k || 'xb') || md5(k || 'xc') || md5(k || 'xd')
      || md5(k || 'xe') || md5(k || 'xf') || md5(k || 'xg') || md5(k || 'xi') AS xbolt,
    md5(k || 't') || md5(k || 'T') AS txid
  FROM generate_series($3::bigint, $4::bigint) AS k`
	r := strings.NewReplacer("{id:i}", uuidPostgres("ti_us", 0), "{id:p}", uuidPostgres("t_us", 1),
		"{far}", `'9999-12-31T00:00:00Z'::timestamptz`, "{ti_plus_12h}", `ti + interval '12 hours'`,
		"{internal_event}", "NULL::bigint")
	return seedStatement(table, slot, r)
}

// seedSQLite is one chunk's statement on SQLite: a recursive count, and
// printf of multiplicative hashes for the texts (SQLite has no md5).
func seedSQLite(table string) string {
	slot := `WITH RECURSIVE n(k) AS (SELECT CAST(?3 AS INTEGER) UNION ALL SELECT k + 1 FROM n WHERE k < ?4)
  SELECT k, k % 100 AS r, 1000 + (k * 7919) % 100000 AS a,
    ?1 + k * ?2 AS t_us, ?1 + k * ?2 - 20000000 AS ti_us,
    ` + sqliteTime("?1 + k * ?2") + ` AS t, ` + sqliteTime("?1 + k * ?2 - 20000000") + ` AS ti,
    ` + pick("?5", "(k + k / 100) % ?8") + ` AS payer,
    ` + pick("?6", "(k / ?8) % ?8") + ` AS payee,
    ` + pick("?5", "(k / 100) % ?8") + ` AS fundee,
    ` + pick("?7", "(k + k / 100) % ?8") + ` AS key,
    ` + hex64("k", 1) + ` AS h, ` + hex64("k", 2) + ` AS pre, ` + hex64("k", 3) + ` AS sec,
    'lnbcrt' || ((1000 + (k * 7919) % 100000) / 1000) || 'n1p' || ` + hex64("k", 4) + ` || ` + hex64("k", 5) + ` || ` + hex64("k", 6) + ` || ` + hex64("k", 7) + ` AS bolt,
    ` + hex64("k", 8) + ` AS xh,
    'lnbcrt' || ((1000 + (k * 7919) % 100000) / 1000) || 'n1p' || ` + hex64("k", 9) + ` || ` + hex64("k", 10) + ` || ` + hex64("k", 11) + ` || ` + hex64("k", 12) + ` AS xbolt,
    ` + hex64("k", 13) + ` AS txid
  FROM n`
	r := strings.NewReplacer("{id:i}", uuidSQLite("ti_us", 0), "{id:p}", uuidSQLite("t_us", 1),
		"{far}", `'9999-12-31 00:00:00+00:00'`, "{ti_plus_12h}", sqliteTime("ti_us + 43200000000"),
		"{internal_event}", "4 * k + 1")
	return seedStatement(table, slot, r)
}

// seedStatement is the INSERT of table's rows from slot's values.
func seedStatement(table, slot string, r *strings.Replacer) string {
	if table == "invoices" {
		return "INSERT INTO invoices (" + seedInvoiceColumns + ")\nSELECT " + r.Replace(seedInvoiceValues) + "\nFROM (" + slot + ") AS s"
	}
	return "INSERT INTO payments (" + seedPaymentColumns + ")\nSELECT " + r.Replace(seedPaymentValues) + "\nFROM (" + slot + ") AS s"
}

// sqliteTime is the text of the time us (microseconds since 1970) as
// Hearth's SQLite connections write times (_time_format=sqlite: UTC, six
// digits of the second when the last is not zero).
func sqliteTime(us string) string {
	return "strftime('%Y-%m-%d %H:%M:%S', (" + us + ") / 1000000, 'unixepoch') || '.' || printf('%06d', (" + us + ") % 1000000) || '+00:00'"
}

// uuidPostgres and uuidSQLite write a version 7 UUID of the time us (a
// column, microseconds) for slot k, unique per tag (0 for invoices, 1
// for payments).
func uuidPostgres(us string, tag int) string {
	ms := "(" + us + " / 1000)"
	return "lpad(to_hex(" + ms + " >> 16), 8, '0') || '-' || lpad(to_hex(" + ms + " & 65535), 4, '0') || '-7' || lpad(to_hex(k % 4096), 3, '0') || '-' || " +
		"to_hex(8 + (k / 4096) % 4) || lpad(to_hex((k / 16384) % 4096), 3, '0') || '-' || lpad(to_hex(2 * k + " + strconv.Itoa(tag) + "), 12, '0')"
}

func uuidSQLite(us string, tag int) string {
	ms := "(" + us + " / 1000)"
	return "printf('%08x-%04x-7%03x-%x%03x-%012x', " + ms + " >> 16, " + ms + " & 65535, k % 4096, 8 + (k / 4096) % 4, (k / 16384) % 4096, 2 * k + " + strconv.Itoa(tag) + ")"
}

// pick is, on SQLite, the i-th (from 0) of the comma-separated list in
// parameter list, every item 36 characters (UUIDs) and a comma.
func pick(list, i string) string {
	return "substr(" + list + ", (" + i + ") * 37 + 1, 36)"
}

// hex64 is, on SQLite, 64 hexadecimal digits that look random, distinct
// for each k below 2^32 (the first eight are a bijection of it) and salt.
func hex64(k string, salt int) string {
	mults := []int64{2654435761, 2246822519, 3266489917, 668265263, 374761393, 2654435789, 1103515245, 40503}
	parts := make([]string, len(mults))
	for i, m := range mults {
		parts[i] = "((" + k + ") * " + strconv.FormatInt(m, 10) + " + " + strconv.Itoa(salt*(2*i+1)*977) + ") % 4294967296"
	}
	return "printf('" + strings.Repeat("%08x", len(mults)) + "', " + strings.Join(parts, ", ") + ")"
}
