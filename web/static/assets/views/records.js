// Invoices and payments as one list of activity.
import { get, query } from '../api.js';
import { h, formatMsat, formatTime, statusBadge } from '../dom.js';

// loadActivity reads the caller's invoices and payments (newest first)
// matching the filters: kind ('' | 'invoices' | 'payments'), status,
// ledger; at most limit of each.
export async function loadActivity({ kind = '', status = '', ledger = '', limit = 100 } = {}, signal) {
  const q = query({ status, ledger, limit });
  // An invoice is never Failed and a payment never Expired: no need to ask.
  const wantInvoices = kind !== 'payments' && status !== 'Failed';
  const wantPayments = kind !== 'invoices' && status !== 'Expired';
  const [invoices, payments] = await Promise.all([
    wantInvoices ? get(`/v1/me/invoices${q}`, { signal }) : [],
    wantPayments ? get(`/v1/me/payments${q}`, { signal }) : [],
  ]);
  const rows = [...(invoices || []).map(fromInvoice), ...(payments || []).map(fromPayment)];
  rows.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
  return rows;
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
    record: p,
  };
}

// detailPath is the view of one row.
export function detailPath(row) {
  return `#/activity/${row.kind === 'invoice' ? 'invoices' : 'payments'}/${encodeURIComponent(row.id)}`;
}

// activityList shows rows as a list; each links to its detail view.
export function activityList(rows, empty = 'Nothing yet.') {
  if (!rows.length) return h('p', { class: 'empty' }, empty);
  return h('ul', { class: 'activity' }, rows.map((r) => h('li', { class: ['row', `row-${r.kind}`] },
    h('a', { href: detailPath(r), class: 'row-link' },
      h('span', { class: 'row-main' },
        h('span', { class: 'row-dir' }, r.direction),
        h('span', { class: 'row-desc' }, r.description || (r.kind === 'invoice' ? 'Invoice' : 'Payment'))),
      h('span', { class: 'row-side' },
        h('span', { class: ['row-amount', r.kind === 'payment' ? 'out' : 'in'] },
          `${r.kind === 'payment' ? '−' : '+'}${formatMsat(r.amount_msat)}`),
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
