// Receive: a BOLT11 invoice with its QR code, whose state turns to paid
// live, the wallet's Lightning Address with its QR code once it has an
// active one, and its on-chain deposit address (onchain.js).
import { get, post } from '../api.js';
import { h, replace, field, errorBox, busy, typedAmount, formatMsat, formatTime, copyButton, statusBadge } from '../dom.js';
import { qrSVG } from '../qr.js';
import { fiat } from '../fiat.js';
import { currentAddress, addressBlock } from './lnaddress.js';
import { onchainSection } from './onchain.js';
import { claimSection } from './withdraw.js';

const expiries = [
  ['600', '10 minutes'],
  ['3600', '1 hour'],
  ['43200', '12 hours'],
  ['86400', '1 day'],
  ['604800', '1 week'],
];

export function receive(ctx) {
  // With a rate for the wallet's currency, the amount may be typed in it
  // too (the server converts it at its rate of now).
  const inCurrency = Boolean(fiat.rate);
  const amount = h('input', { type: 'text', name: 'amount', inputmode: inCurrency ? 'decimal' : 'numeric', autocomplete: 'off', required: true,
    pattern: inCurrency ? '[0-9., _]+' : '[0-9, _]+' });
  const unit = inCurrency ? h('select', { name: 'unit' }, h('option', { value: 'sats' }, 'sats'), h('option', { value: fiat.currency }, fiat.currency)) : null;
  const description = h('input', { type: 'text', name: 'description', maxlength: 639, autocomplete: 'off' });
  const expiry = h('select', { name: 'expiry' }, expiries.map(([v, label]) => h('option', { value: v, selected: v === '3600' }, label)));
  const err = h('div');
  const out = h('div', { class: 'invoice-out' });
  const form = h('form', { class: 'card' },
    inCurrency ? h('div', { class: 'amount-unit' }, field('Amount', amount), field('In', unit)) : field('Amount (sats)', amount),
    field('Description', description, 'Shown to the payer and kept with the invoice.'),
    field('Expires after', expiry),
    err,
    h('button', { type: 'submit' }, 'Create invoice'));

  let stopTimer = () => {};
  ctx.signal.addEventListener('abort', () => stopTimer());

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.replaceChildren();
    const body = { expiry: Number(expiry.value) };
    const typed = typedAmount(amount.value, unit && unit.value);
    if (typed.error) {
      err.append(errorBox(typed.error));
      return;
    }
    Object.assign(body, typed);
    if (description.value.trim()) body.description = description.value;
    try {
      const inv = await busy(form, () => post('/v1/me/invoices', body, { signal: ctx.signal }));
      stopTimer();
      stopTimer = showInvoice(ctx, out, inv);
    } catch (x) {
      if (x.name !== 'AbortError') err.append(errorBox(x));
    }
  });

  return h('div', {},
    h('h1', {}, 'Receive'),
    h('div', { class: 'split' }, h('div', {}, form, claimSection(ctx)), h('div', { class: 'receive-side' }, out, lightningAddress(ctx), onchainSection(ctx))));
}

// lightningAddress shows the wallet's active Lightning Address (GET
// /v1/me's ln_address) with its QR code, or where to register one.
function lightningAddress(ctx) {
  const { app } = ctx;
  const known = app.permissions.length > 0;
  const section = h('section', { class: 'card receive-address', 'aria-labelledby': 'receive-ln-h' },
    h('h2', { id: 'receive-ln-h' }, 'Lightning Address'));
  const show = async () => {
    try {
      const address = await currentAddress(ctx);
      if (address) section.append(addressBlock(address));
      else if (!known || app.has('read:ln_address')) {
        section.append(h('p', {}, 'No active Lightning Address. ', h('a', { href: '#/lightning-address' }, 'Register a Lightning Address'),
          ' (or turn yours on there) to be paid at user@domain by any wallet, without making an invoice.'));
      } else {
        section.remove();
      }
    } catch (e) {
      if (e.name !== 'AbortError') section.append(errorBox(e));
    }
  };
  show();
  return section;
}

// showInvoice shows inv in out and follows its state; it returns the way
// to stop its expiry timer.
export function showInvoice(ctx, out, inv) {
  const bolt11 = inv.ln_invoice ? inv.ln_invoice.bolt11 : '';
  const state = h('p', { class: 'invoice-state', role: 'status', 'aria-live': 'polite' });
  const card = h('section', { class: 'card invoice', 'aria-label': 'Invoice' });
  const update = (rec) => {
    inv = rec;
    card.dataset.status = rec.status;
    if (rec.status === 'Settled') {
      replace(state, statusBadge('Paid'), ` ${formatMsat(rec.amount_received_msat ?? rec.amount_msat)} received ${formatTime(rec.payment_time)}`);
      card.classList.add('paid');
    } else if (rec.status === 'Expired') {
      replace(state, statusBadge('Expired'), ' This invoice can no longer be paid.');
    } else {
      replace(state, statusBadge('Pending'), ' Waiting for the payment…');
    }
  };
  const refresh = async () => {
    try {
      update(await get(`/v1/me/invoices/${encodeURIComponent(inv.id)}`, { signal: ctx.signal }));
    } catch {
      // shown again at the next event
    }
  };
  ctx.on((msg) => {
    if (msg.type === 'refresh' || msg.type === 'reset') refresh();
    else if (msg.type === 'invoice.settled' && msg.event && msg.event.data && msg.event.data.id === inv.id) update(msg.event.data);
  });
  let timer = null;
  if (inv.ln_invoice && inv.ln_invoice.expires_at) {
    const ms = new Date(inv.ln_invoice.expires_at).getTime() - Date.now() + 1000;
    if (ms > 0 && ms < 2 ** 31) timer = setTimeout(refresh, ms);
  }
  replace(card,
    h('h2', {}, formatMsat(inv.amount_msat)),
    inv.fiat ? h('p', { class: 'invoice-fiat' }, `Asked for ${inv.fiat.amount} ${inv.fiat.currency} at ${inv.fiat.rate} sat per ${inv.fiat.currency}${inv.fiat.fixed ? ' (a rate set by hand)' : ''}`) : null,
    inv.description ? h('p', { class: 'invoice-desc' }, inv.description) : null,
    bolt11 ? qrSVG(bolt11, 'QR code of the invoice') : null,
    state,
    h('div', { class: 'field' },
      h('label', { for: 'bolt11' }, 'Invoice (BOLT11)'),
      h('textarea', { id: 'bolt11', class: 'mono', readonly: true, rows: 4, value: bolt11 })),
    h('div', { class: 'actions' }, copyButton(bolt11, 'Copy invoice'),
      h('a', { href: `#/activity/invoices/${encodeURIComponent(inv.id)}` }, 'Details')),
    inv.ln_invoice ? h('p', { class: 'hint' }, `Expires ${formatTime(inv.ln_invoice.expires_at)}`) : null);
  update(inv);
  replace(out, card);
  return () => clearTimeout(timer);
}
