// Invoices and payments as one list of activity.
import { get, query } from '../api.js';
import { h, formatMsat, formatMsatThen, formatTime, statusBadge } from '../dom.js';

// timeKey splits an RFC 3339 time into its whole seconds (ms since the
// epoch) and its nanoseconds, which Date cannot hold.
function timeKey(s) {
  const m = /^(.*?)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(s || '');
  if (!m) return [Date.parse(s) || 0, 0];
  return [Date.parse(m[1] + m[3]), Number((m[2] || '').padEnd(9, '0').slice(0, 9))];
}

// newer orders rows newest first: by created_at, then by id.
export function newer(a, b) {
  const [sa, na] = timeKey(a.created_at);
  const [sb, nb] = timeKey(b.created_at);
  if (sa !== sb) return sa > sb;
  if (na !== nb) return na > nb;
  return a.id > b.id;
}

// nextPage is the path of a list's next page from its Link header
// (rel="next": the same list from the cursor of the last row), or '' on
// the last page. Only a path of this server is followed.
export function nextPage(headers) {
  const m = /<([^>]*)>\s*;\s*rel="next"/.exec(headers.get('Link') || '');
  return m && m[1].startsWith('/') && !m[1].startsWith('//') ? m[1] : '';
}

// activityPager reads the caller's invoices and payments matching the
// filters — kind ('' | 'invoices' | 'payments'), status, ledger — newest
// first, a page of pageSize at a time from each list, merged. Each list's
// next page is the one its Link header names: it goes on from the last row
// read (a cursor), so records that come in meanwhile neither repeat rows
// nor push any out of reach, and a page deep in the list costs the server
// what the first does.
export function activityPager({ kind = '', status = '', ledger = '' } = {}, signal, pageSize = 100) {
  const sources = [];
  // An invoice is never Failed and a payment never Expired: no need to ask.
  if (kind !== 'payments' && status !== 'Failed') sources.push({ path: '/v1/me/invoices', map: fromInvoice });
  if (kind !== 'invoices' && status !== 'Expired') sources.push({ path: '/v1/me/payments', map: fromPayment });
  for (const s of sources) Object.assign(s, { buf: [], next: `${s.path}${query({ status, ledger, limit: pageSize })}` });
  const fill = async (s) => {
    if (s.buf.length || !s.next) return;
    let next = '';
    const page = await get(s.next, { signal, onHeaders: (h) => { next = nextPage(h); } });
    s.next = next;
    s.buf.push(...page.map(s.map));
  };
  return {
    // next returns up to n more rows.
    async next(n) {
      const out = [];
      while (out.length < n) {
        await Promise.all(sources.map(fill));
        let best = null;
        for (const s of sources) if (s.buf.length && (!best || newer(s.buf[0], best.buf[0]))) best = s;
        if (!best) break;
        out.push(best.buf.shift());
      }
      return out;
    },
    // more is false once every row was returned.
    get more() { return sources.some((s) => s.buf.length > 0 || s.next !== ''); },
  };
}

// loadActivity returns the newest n rows matching the filters.
export function loadActivity(filters, n, signal) {
  return activityPager(filters, signal, Math.min(Math.max(n, 1), 1000)).next(n);
}

export function fromInvoice(inv) {
  return {
    kind: 'invoice',
    id: inv.id,
    created_at: inv.created_at,
    direction: 'Received',
    amount_msat: inv.amount_received_msat ?? inv.amount_msat ?? null,
    fee_msat: inv.fee_msat ?? null,
    status: inv.status,
    ledger: inv.ledger,
    description: inv.description ?? '',
    paid_at: inv.payment_time ?? null,
    bolt11: inv.ln_invoice ? inv.ln_invoice.bolt11 : '',
    payment_hash: inv.ln_invoice ? inv.ln_invoice.payment_hash : '',
    txid: inv.bitcoin_output ? inv.bitcoin_output.txid : '',
    record: inv,
  };
}

export function fromPayment(p) {
  const detail = p.lightning || p.internal || {};
  return {
    kind: 'payment',
    id: p.id,
    created_at: p.created_at,
    direction: 'Sent',
    amount_msat: p.amount_msat ?? null,
    fee_msat: p.fee_msat ?? null,
    status: p.status,
    ledger: p.ledger,
    description: p.description ?? '',
    paid_at: p.payment_time ?? null,
    bolt11: '',
    payment_hash: detail.payment_hash || '',
    txid: p.bitcoin ? p.bitcoin.txid : '',
    record: p,
  };
}

// detailPath is the view of one row.
export function detailPath(row) {
  return `#/activity/${row.kind === 'invoice' ? 'invoices' : 'payments'}/${encodeURIComponent(row.id)}`;
}

// onchainNote says where an on-chain row stands: a deposit's
// confirmations; a spend's state (waiting for its first confirmation),
// fee and transaction.
export function onchainNote(r) {
  if (r.ledger !== 'Onchain') return '';
  const out = r.record && r.record.bitcoin_output;
  if (r.kind === 'invoice' && out) {
    const n = out.confirmations || 0;
    return r.status === 'Pending' ? `${n} confirmation${n === 1 ? '' : 's'}, credited once confirmed` : '';
  }
  if (r.kind !== 'payment') return '';
  const parts = [];
  if (r.status === 'Pending') parts.push('Broadcast, waiting for its first confirmation');
  if (r.fee_msat != null && r.status !== 'Failed') parts.push(`fee ${formatMsat(r.fee_msat)}`);
  if (r.txid) parts.push(`tx ${r.txid.slice(0, 12)}…`);
  return parts.join(' · ');
}

// pendingOnchain says whether rows hold an on-chain record that is not
// final yet (its confirmations come with no event: read them again).
export function pendingOnchain(rows) {
  return rows.some((r) => r.ledger === 'Onchain' && r.status === 'Pending');
}

// activityList shows rows as a list; each links to its detail view.
export function activityList(rows, empty = 'Nothing yet.') {
  if (!rows.length) return h('p', { class: 'empty' }, empty);
  return h('ul', { class: 'activity' }, rows.map((r) => h('li', { class: ['row', `row-${r.kind}`] },
    h('a', { href: detailPath(r), class: 'row-link' },
      h('span', { class: 'row-main' },
        h('span', { class: 'row-dir' }, r.direction),
        h('span', { class: 'row-desc' }, r.description || (r.ledger === 'Onchain'
          ? (r.kind === 'invoice' ? 'On-chain deposit' : 'On-chain payment')
          : (r.kind === 'invoice' ? 'Invoice' : 'Payment'))),
        onchainNote(r) ? h('span', { class: 'row-note' }, onchainNote(r)) : null),
      h('span', { class: 'row-side' },
        h('span', { class: ['row-amount', r.kind === 'payment' ? 'out' : 'in'] },
          `${r.kind === 'payment' ? '−' : '+'}${formatMsatThen(r.amount_msat, r.record && r.record.value)}`),
        statusBadge(r.status),
        h('time', { datetime: r.created_at, class: 'row-time' }, formatTime(r.created_at)))))));
}

// debounce runs fn once after a burst of calls.
export function debounce(fn, ms = 150) {
  let t = null;
  return (...args) => {
    clearTimeout(t);
    t = setTimeout(() => fn(...args), ms);
  };
}
