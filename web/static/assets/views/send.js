// Send: one field for anything the API accepts as a payment input, a
// preview with the fee estimate, a confirm step, then the result, Pending
// shown as such until the payment settles or fails. A bitcoin address or
// BIP21 URI is paid on-chain: an optional fee rate, the exact fee of the
// prepared transaction in the preview, its txid while it confirms.
import { get, post } from '../api.js';
import { h, replace, field, errorBox, busy, typedAmount, formatMsat, formatTime, statusBadge } from '../dom.js';
import { decodeBolt11 } from '../bolt11.js';
import { fiat } from '../fiat.js';

// parseBitcoin reads an on-chain input: a bare address or a BIP21 URI
// (bitcoin:<address>?amount=<BTC>). It returns {address, amountMsat}
// (amountMsat null without an amount), {lightning: true} for a URI with a
// lightning= parameter (paid over Lightning), or null when text is none.
export function parseBitcoin(text) {
  const t = String(text || '').trim();
  let address = t;
  let params = new URLSearchParams();
  const uri = /^bitcoin:([^?]*)(?:\?(.*))?$/i.exec(t);
  if (uri) {
    address = uri[1];
    params = new URLSearchParams(uri[2] || '');
  } else if (!/^((bc|tb|bcrt)1[02-9ac-hj-np-z]{6,87}|[123mn][1-9A-HJ-NP-Za-km-z]{25,39})$/i.test(t)) {
    return null;
  }
  if (params.has('lightning')) return { lightning: true };
  let amountMsat = null;
  const amount = params.get('amount');
  if (amount !== null) {
    const m = /^(\d+)(?:\.(\d{1,8}))?$/.exec(amount);
    if (m) amountMsat = (Number(m[1]) * 1e8 + Number((m[2] || '').padEnd(8, '0'))) * 1000;
  }
  return { address, amountMsat };
}

export function send(ctx) {
  const view = h('div', {}, h('h1', {}, 'Send'));
  const body = h('div');
  view.append(body);
  step1(ctx, body, {});
  return view;
}

// step1 asks what to pay and, when the input has no amount, how much.
function step1(ctx, body, prev) {
  const input = h('textarea', { name: 'input', rows: 4, class: 'mono', autocomplete: 'off', spellcheck: 'false', required: true, value: prev.input || '' });
  // With a rate for the wallet's currency, the amount may be typed in it
  // too (the server prices it at its rate when it pays, to the satoshi).
  const inCurrency = Boolean(fiat.rate);
  const amount = h('input', { type: 'text', name: 'amount', inputmode: inCurrency ? 'decimal' : 'numeric', autocomplete: 'off', value: prev.amountText || '' });
  const unit = inCurrency ? h('select', { name: 'unit' }, h('option', { value: 'sats' }, 'sats'),
    h('option', { value: fiat.currency, selected: prev.unit === fiat.currency }, fiat.currency)) : null;
  const amountHint = 'Needed when the request carries no amount: a Lightning Address, an LNURL, an invoice without an amount.';
  const amountField = inCurrency
    ? h('div', { class: 'amount-unit' }, field('Amount', amount, amountHint), field('In', unit))
    : field('Amount (sats)', amount, amountHint);
  const feeRate = h('input', { type: 'text', name: 'fee_rate', inputmode: 'numeric', autocomplete: 'off', value: prev.feeRateText || '' });
  const feeField = field('Fee rate (sat/vB, optional)', feeRate, 'For an on-chain payment: empty, the node estimates a fee to confirm within a few blocks.');
  const summary = h('p', { class: 'hint', 'aria-live': 'polite' });
  const err = h('div');
  const sync = () => {
    const inv = decodeBolt11(input.value);
    const btc = inv ? null : parseBitcoin(input.value);
    const onchain = Boolean(btc && !btc.lightning);
    amountField.hidden = Boolean((inv && inv.amountMsat !== null) || (onchain && btc.amountMsat !== null));
    feeField.hidden = !onchain;
    if (inv) summary.textContent = `Invoice${inv.amountMsat !== null ? ` of ${formatMsat(inv.amountMsat)}` : ' without an amount'}${inv.description ? `: ${inv.description}` : ''}`;
    else if (onchain) summary.textContent = `On-chain payment to ${btc.address}${btc.amountMsat !== null ? ` of ${formatMsat(btc.amountMsat)}` : ''}`;
    else summary.textContent = '';
  };
  input.addEventListener('input', sync);
  sync();
  const form = h('form', { class: 'card' },
    field('Pay to', input, 'A BOLT11 invoice, a Lightning Address (name@domain), an LNURL or a bitcoin: URI.'),
    summary,
    amountField,
    feeField,
    err,
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Review payment')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.replaceChildren();
    const req = { input: input.value.trim() };
    if (!req.input) {
      err.append(errorBox('Paste an invoice or type an address to pay.'));
      return;
    }
    if (!amountField.hidden && amount.value.trim()) {
      const typed = typedAmount(amount.value, unit && unit.value);
      if (typed.error) {
        err.append(errorBox(typed.error));
        return;
      }
      Object.assign(req, typed);
    }
    if (!feeField.hidden && feeRate.value.trim()) {
      const rate = Number(feeRate.value.trim());
      if (!Number.isInteger(rate) || rate < 1 || rate > 5000) {
        err.append(errorBox('Type the fee rate as a whole number of sat/vB from 1 to 5000, or leave it empty.'));
        return;
      }
      req.fee_rate_sat_vb = rate;
    }
    try {
      const est = await busy(form, () => post('/v1/me/payments/fee-estimate', req, { signal: ctx.signal }));
      step2(ctx, body, req, est, { input: input.value, amountText: amount.value, unit: unit && unit.value, feeRateText: feeRate.value });
    } catch (x) {
      if (x.name !== 'AbortError') err.append(errorBox(x));
    }
  });
  replace(body, form);
  input.focus();
}

// step2 shows what the payment will cost and asks to confirm.
function step2(ctx, body, req, est, prev) {
  const inv = decodeBolt11(req.input);
  // One payment, however often Send is pressed. (getRandomValues, not
  // randomUUID: a server on a LAN address is not a secure context.)
  const key = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
  const err = h('div');
  const internal = est.ledger === 'Internal';
  const onchain = est.ledger === 'Onchain';
  const btc = onchain ? parseBitcoin(req.input) : null;
  const rate = req.fee_rate_sat_vb ? `${req.fee_rate_sat_vb} sat/vB` : 'the node’s estimated rate';
  const send = h('button', { type: 'button' }, 'Send');
  const back = h('button', { type: 'button', class: 'secondary' }, 'Back');
  const card = h('section', { class: 'card preview', 'aria-labelledby': 'preview-h' },
    h('h2', { id: 'preview-h' }, 'Confirm the payment'),
    h('dl', { class: 'facts' },
      h('dt', {}, 'Amount'), h('dd', { id: 'preview-amount' }, formatMsat(est.amount_msat)),
      req.currency ? [h('dt', {}, 'Asked'), h('dd', { id: 'preview-asked' }, `${req.amount} ${req.currency}, priced in sats at the rate when it is sent`)] : null,
      h('dt', {}, 'Description'), h('dd', { id: 'preview-description' }, (inv && inv.description) || '—'),
      btc && btc.address ? [h('dt', {}, 'Address'), h('dd', { id: 'preview-address', class: 'mono wrap' }, btc.address)] : null,
      h('dt', {}, 'Fee'), h('dd', { id: 'preview-fee' }, internal
        ? 'None: the payee is a wallet of this server'
        : onchain ? `${formatMsat(est.estimated_fee_msat ?? est.maximum_fee_msat)} at ${rate}, for the transaction as prepared`
          : est.estimated_fee_msat != null ? `about ${formatMsat(est.estimated_fee_msat)}` : 'not known before paying'),
      internal || onchain ? null : [h('dt', {}, 'Fee at most'), h('dd', {}, formatMsat(est.maximum_fee_msat))],
      h('dt', {}, onchain ? 'Total' : 'Total at most'), h('dd', { id: 'preview-total' }, formatMsat(est.maximum_total_msat)),
      h('dt', {}, 'Route'), h('dd', {}, onchain ? 'On-chain (a bitcoin transaction)' : est.ledger),
      inv ? [h('dt', {}, 'Expires'), h('dd', {}, formatTime(inv.expiresAt.toISOString()))] : null),
    h('p', { class: 'mono wrap small' }, req.input),
    onchain ? h('p', { class: 'hint' }, 'Sending broadcasts a transaction: it cannot be called back. The payment settles at its first confirmation.') : null,
    err,
    h('div', { class: 'actions' }, send, back));
  back.addEventListener('click', () => step1(ctx, body, prev));
  send.addEventListener('click', async () => {
    err.replaceChildren();
    try {
      const pay = await busy(card, () => post('/v1/me/payments', req, { signal: ctx.signal, headers: { 'Idempotency-Key': key } }));
      step3(ctx, body, pay);
    } catch (x) {
      if (x.name !== 'AbortError') err.append(errorBox(x));
    }
  });
  replace(body, card);
  send.focus();
}

// step3 shows the payment and follows it until it is final.
function step3(ctx, body, pay) {
  const state = h('div', { role: 'status', 'aria-live': 'polite', class: 'result' });
  const update = (p) => {
    pay = p;
    const proof = (p.lightning || p.internal || {}).payment_preimage;
    const btc = p.bitcoin;
    const lines = {
      Settled: `Sent ${formatMsat(p.amount_msat)}${p.fee_msat ? ` (fee ${formatMsat(p.fee_msat)})` : ''}${btc ? ', confirmed' : ''}.`,
      Failed: `The payment failed${p.error ? `: ${p.error}` : '.'} Nothing was taken from the balance.`,
      Pending: btc
        ? `The transaction is broadcast and waits for its first confirmation: ${formatMsat(p.amount_msat)} and its fee of ${formatMsat(p.fee_msat)} are reserved. It settles here when a block confirms it; it is safe to leave this page.`
        : 'The payment is in flight: its amount and maximum fee are reserved. Its final state shows here as soon as the node reports it; it is safe to leave this page.',
    };
    replace(state,
      h('p', {}, statusBadge(p.status), ' ', lines[p.status] || p.status),
      p.fiat ? h('p', { class: 'small', id: 'result-fiat' }, `Asked ${p.fiat.amount} ${p.fiat.currency} at ${p.fiat.rate} sat per ${p.fiat.currency}${p.fiat.fixed ? ' (a rate set by hand)' : ''}.`) : null,
      btc && btc.txid ? h('p', { class: 'small' }, 'Transaction id: ', h('code', { class: 'wrap', id: 'result-txid' }, btc.txid)) : null,
      btc ? h('p', { class: 'small' }, 'To: ', h('code', { class: 'wrap' }, btc.address)) : null,
      proof ? h('p', { class: 'small' }, 'Proof of payment (preimage): ', h('code', { class: 'wrap' }, proof)) : null);
  };
  ctx.on(async (msg) => {
    const data = msg.event && msg.event.data;
    if ((msg.type === 'payment.settled' || msg.type === 'payment.failed') && data && data.id === pay.id) update(data);
    else if (msg.type === 'refresh' || msg.type === 'reset') {
      try { update(await get(`/v1/me/payments/${encodeURIComponent(pay.id)}`, { signal: ctx.signal })); } catch { /* next event */ }
    }
  });
  update(pay);
  replace(body, h('section', { class: 'card', 'aria-labelledby': 'result-h' },
    h('h2', { id: 'result-h' }, 'Payment'),
    state,
    h('div', { class: 'actions' },
      h('a', { class: 'button', href: `#/activity/payments/${encodeURIComponent(pay.id)}` }, 'Details'),
      h('button', { type: 'button', class: 'secondary', onclick: () => step1(ctx, body, {}) }, 'Send another'))));
}
