// Activity: invoices and payments with filters, one record's details
// (a hold invoice's with Settle and Cancel), and the server's CSV exports
// of every record the filters match.
import { get, post } from '../api.js';
import { h, replace, field, errorBox, busy, formatMsat, formatTime, copyButton, statusBadge } from '../dom.js';
import { activityPager, activityList, fromInvoice, fromPayment, debounce, pendingOnchain, onchainNote } from './records.js';
import { qrSVG } from '../qr.js';
import { exportControls } from './export.js';

const PAGE = 100; // rows shown at a time
const POLL_MS = 5000; // while an on-chain record is pending

function select(name, options) {
  return h('select', { name }, options.map(([v, label]) => h('option', { value: v }, label)));
}

export function activity(ctx) {
  const kind = select('kind', [['', 'Invoices and payments'], ['invoices', 'Invoices (received)'], ['payments', 'Payments (sent)']]);
  const status = select('status', [['', 'Any'], ['Pending', 'Pending'], ['Settled', 'Settled'], ['Expired', 'Expired'], ['Failed', 'Failed']]);
  const ledger = select('ledger', [['', 'Any'], ['Lightning', 'Lightning'], ['Internal', 'Internal'], ['Onchain', 'On-chain']]);
  const list = h('div', { class: 'activity-list' }, h('p', { class: 'empty' }, 'Loading…'));
  const count = h('p', { class: 'hint', 'aria-live': 'polite' });
  const more = h('button', { type: 'button', class: 'secondary', hidden: true }, 'Show more');
  let rows = [];
  let pager = null;
  let run = 0; // the newest load; an older one's answer is dropped

  const show = () => {
    count.textContent = `${rows.length} record${rows.length === 1 ? '' : 's'}${pager.more ? ', more below' : ''}`;
    replace(list, activityList(rows, 'Nothing matches these filters.'));
    more.hidden = !pager.more;
  };
  // load reads the first rows again (at least as many as are shown).
  const load = async () => {
    const mine = ++run;
    const p = activityPager({ kind: kind.value, status: status.value, ledger: ledger.value }, ctx.signal, PAGE);
    try {
      const got = await p.next(Math.max(PAGE, rows.length));
      if (mine !== run) return;
      pager = p;
      rows = got;
      show();
      poll();
    } catch (e) {
      if (e.name !== 'AbortError' && mine === run) replace(list, errorBox(e));
    }
  };
  more.addEventListener('click', async () => {
    const mine = run;
    try {
      const got = await busy(more.parentNode, () => pager.next(PAGE));
      if (mine !== run) return;
      rows = rows.concat(got);
      show();
    } catch (e) {
      if (e.name !== 'AbortError') list.append(errorBox(e));
    }
  });
  // On-chain records confirm with no event until they are final: read
  // again while one is pending.
  let timer = null;
  const poll = () => {
    clearTimeout(timer);
    if (pendingOnchain(rows)) timer = setTimeout(load, POLL_MS);
  };
  ctx.signal.addEventListener('abort', () => clearTimeout(timer));
  const exp = exportControls(() => ({ kind: kind.value, status: status.value, ledger: ledger.value }), ctx.signal);
  [kind, status, ledger].forEach((s) => s.addEventListener('change', () => { rows = []; exp.update(); load(); }));
  ctx.on(debounce(load));
  load();

  return h('div', {},
    h('h1', {}, 'Activity'),
    h('form', { class: 'filters', role: 'search', 'aria-label': 'Filters', onsubmit: (e) => e.preventDefault() },
      field('Show', kind), field('Status', status), field('Ledger', ledger)),
    exp.el,
    count,
    list,
    h('div', { class: 'actions' }, more));
}

export function invoiceDetail(ctx) {
  return detail(ctx, 'invoices', fromInvoice, 'invoice.settled');
}

export function paymentDetail(ctx) {
  return detail(ctx, 'payments', fromPayment, null);
}

function detail(ctx, kind, normalize, settledType) {
  const id = ctx.params.id;
  const body = h('div', {}, h('p', { class: 'empty' }, 'Loading…'));
  const show = (rec) => {
    const r = normalize(rec);
    const facts = [
      ['Status', statusBadge(r.status)],
      ['Amount', formatMsat(r.amount_msat)],
      ['Fee', r.fee_msat != null ? formatMsat(r.fee_msat) : '—'],
      ['Ledger', r.ledger],
      ['Description', r.description || '—'],
      ['Created', formatTime(r.created_at)],
      [r.kind === 'invoice' ? 'Paid' : 'Settled', formatTime(r.paid_at)],
      ['Id', h('code', {}, r.id)],
    ];
    if (rec.fiat) facts.push(['Asked', h('span', { id: 'detail-asked' }, `${rec.fiat.amount} ${rec.fiat.currency} at ${rec.fiat.rate} sat per ${rec.fiat.currency}${rec.fiat.fixed ? ' (a rate set by hand)' : ''}`)]);
    if (rec.value) facts.push(['Value when settled', h('span', { id: 'detail-value' }, `${rec.value.amount} ${rec.value.currency} at ${rec.value.rate} sat per ${rec.value.currency}${rec.value.fixed ? ' (a rate set by hand)' : ''}`)]);
    if (r.payment_hash) facts.push(['Payment hash', h('code', { class: 'wrap' }, r.payment_hash)]);
    const proof = rec.ln_invoice?.payment_preimage || (rec.lightning || rec.internal || {}).payment_preimage;
    if (proof) facts.push(['Preimage', h('code', { class: 'wrap' }, proof)]);
    const out = rec.bitcoin_output;
    if (out) {
      facts.push(['Address', h('code', { class: 'wrap' }, out.address)]);
      facts.push(['Transaction', h('code', { class: 'wrap', id: 'detail-txid' }, `${out.txid}:${out.vout}`)]);
      facts.push(['Confirmations', String(out.confirmations || 0)]);
      facts.push(['Block', out.block_height ? String(out.block_height) : 'not mined yet']);
    }
    if (rec.bitcoin) {
      facts.push(['Address', h('code', { class: 'wrap' }, rec.bitcoin.address)]);
      facts.push(['Transaction', rec.bitcoin.txid ? h('code', { class: 'wrap', id: 'detail-txid' }, rec.bitcoin.txid) : 'not broadcast yet']);
    }
    if (onchainNote(r)) facts.push(['State', onchainNote(r)]);
    if (rec.error) facts.push(['Error', rec.error]);
    if (rec.ln_invoice) facts.push(['Expires', formatTime(rec.ln_invoice.expires_at)]);
    if (rec.hold) facts.push(['Hold', h('span', { id: 'detail-hold' }, holdState(rec))]);
    replace(body,
      h('section', { class: 'card', 'aria-label': 'Details' },
        h('dl', { class: 'facts' }, facts.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
        r.bolt11 && r.status === 'Pending' ? qrSVG(r.bolt11, 'QR code of the invoice') : null,
        r.bolt11 ? h('div', { class: 'field' },
          h('label', { for: 'detail-bolt11' }, 'Invoice (BOLT11)'),
          h('textarea', { id: 'detail-bolt11', class: 'mono', readonly: true, rows: 4, value: r.bolt11 })) : null,
        r.bolt11 ? h('div', { class: 'actions' }, copyButton(r.bolt11, 'Copy invoice')) : null),
      rec.hold ? holdControls(rec, ctx.signal, show) : null);
  };
  let timer = null;
  ctx.signal.addEventListener('abort', () => clearTimeout(timer));
  const load = async () => {
    clearTimeout(timer);
    try {
      const rec = await get(`/v1/me/${kind}/${encodeURIComponent(id)}`, { signal: ctx.signal });
      show(rec);
      if (rec.ledger === 'Onchain' && rec.status === 'Pending') timer = setTimeout(load, POLL_MS);
    } catch (e) {
      if (e.name !== 'AbortError') replace(body, errorBox(e));
    }
  };
  ctx.on((msg) => {
    const data = msg.event && msg.event.data;
    if (data && data.id === id && (msg.type === settledType || (kind === 'invoices' && holdEvents.has(msg.type)) || msg.type === 'onchain.deposit' || msg.type.startsWith('payment.'))) show(data);
    else if (msg.type === 'refresh' || msg.type === 'reset') load();
  });
  load();
  return h('div', {},
    h('p', { class: 'back' }, h('a', { href: '#/activity' }, '← Activity')),
    h('h1', {}, kind === 'invoices' ? 'Invoice' : 'Payment'),
    body);
}

const holdEvents = new Set(['invoice.accepted', 'invoice.cancelled']);

// holdState says where a hold invoice stands, in words.
function holdState(rec) {
  switch (rec.status) {
    case 'Pending': return 'A hold invoice, waiting for its payment.';
    case 'Accepted': return `Paid and held until ${formatTime(rec.settle_by)}${rec.settle_deadline ? ` (block ${rec.settle_deadline})` : ''}: settle it with its preimage to keep the money, or cancel it to send it back. Left, it is cancelled then.`;
    case 'Settled': return 'Settled with its preimage: the money is the wallet’s.';
    case 'Cancelled': return 'Cancelled: the payer’s money went back.';
    default: return `A hold invoice, ${rec.status}.`;
  }
}

// holdControls are a hold invoice's actions: Settle with the preimage
// (Accepted), Cancel after a confirm step (Pending or Accepted). Each
// shows the invoice as the server answers it.
function holdControls(rec, signal, show) {
  const accepted = rec.status === 'Accepted';
  if (!accepted && rec.status !== 'Pending') return null;
  const path = `/v1/me/invoices/${encodeURIComponent(rec.id)}`;
  const msg = h('div', { 'aria-live': 'polite' });
  const act = async (el, fn) => {
    replace(msg);
    try {
      show(await busy(el, fn));
    } catch (e) {
      if (e.name !== 'AbortError') replace(msg, errorBox(e));
    }
  };
  let settle = null;
  if (accepted) {
    const preimage = h('input', { name: 'preimage', class: 'mono', required: true, autocomplete: 'off', spellcheck: 'false',
      pattern: '[0-9a-fA-F]{64}', title: '64 hexadecimal characters' });
    settle = h('form', { 'aria-label': 'Settle' },
      field('Preimage', preimage, 'The 32 bytes, in hex, whose SHA-256 is the payment hash.'),
      h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Settle')));
    settle.addEventListener('submit', (e) => {
      e.preventDefault();
      act(settle, () => post(`${path}/settle`, { preimage: preimage.value.trim().toLowerCase() }, { signal }));
    });
  }
  const cancel = h('button', { type: 'button', class: 'danger' }, 'Cancel invoice');
  const actions = h('div', { class: 'actions' }, cancel);
  cancel.addEventListener('click', () => {
    const sure = h('button', { type: 'button', class: 'danger' }, 'Cancel it now');
    const keep = h('button', { type: 'button', class: 'secondary' }, 'Keep it');
    replace(actions, h('span', { class: 'hint' }, accepted ? 'The payer’s money goes back.' : 'It can no longer be paid.'), sure, keep);
    keep.addEventListener('click', () => replace(actions, cancel));
    sure.addEventListener('click', () => act(actions, () => post(`${path}/cancel`, undefined, { signal })));
  });
  return h('section', { class: 'card', 'aria-label': 'Hold invoice' },
    h('h2', {}, accepted ? 'Settle or cancel' : 'Cancel'),
    settle, actions, msg);
}
