// On-chain deposits in Receive: the wallet's deposit address of a type,
// with a QR code of its BIP21 URI and the state of what pays it, and the
// list of its deposit addresses (delete with a confirm step).
//
// Nothing is asked before a person asks: on the embedded node every
// bitcoin route answers 422 onchain_unavailable, and the section then
// says so (and says it at once on later visits: app.onchain is false).
// Deposits have no event until they are credited (onchain.deposit), so a
// shown address is polled while it waits and while its deposit confirms.
import { get, post, del, query } from '../api.js';
import { h, replace, field, errorBox, busy, satsToMsat, formatMsat, formatTime, copyButton, statusBadge } from '../dom.js';
import { qrSVG } from '../qr.js';

export const addressTypes = [
  ['p2wpkh', 'Native SegWit (p2wpkh)'],
  ['p2tr', 'Taproot (p2tr)'],
  ['p2sh', 'Nested SegWit (p2sh)'],
];

const POLL_MS = 3000;

// satsToBTC writes whole sats as a BIP21 amount in bitcoin: 12345 →
// "0.00012345", 100000000 → "1".
export function satsToBTC(sats) {
  const whole = Math.trunc(sats / 1e8);
  const frac = String(sats % 1e8).padStart(8, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : String(whole);
}

// bip21 is the URI of address (with amount in sats when given). A bech32
// address is case-insensitive: upper-cased with its scheme it fits a QR
// code's denser alphanumeric mode (BIP21 and BIP173 allow it); the query
// is not, and stays as it is.
export function bip21(address, sats) {
  const bech32 = /^(bc|tb|bcrt)1[02-9ac-hj-np-z]{6,87}$/.test(address);
  let uri = bech32 ? `BITCOIN:${address.toUpperCase()}` : `bitcoin:${address}`;
  if (sats) uri += `?amount=${satsToBTC(sats)}`;
  return uri;
}

function unavailable(e) {
  return e && (e.code === 'onchain_unavailable' || e.status === 404);
}

function unavailableNote() {
  return h('p', { class: 'hint', id: 'onchain-unavailable' },
    'On-chain deposits need the server to run an lnd or cln node. This server runs the embedded node: it receives over Lightning only.');
}

// onchainSection is Receive's on-chain part.
export function onchainSection(ctx) {
  const { app } = ctx;
  const section = h('section', { class: 'card receive-onchain', 'aria-labelledby': 'receive-btc-h' },
    h('h2', { id: 'receive-btc-h' }, 'Bitcoin (on-chain)'));
  if (app.onchain === false) {
    section.append(unavailableNote());
    return section;
  }
  const type = h('select', { name: 'address_type' }, addressTypes.map(([v, label]) => h('option', { value: v }, label)));
  const err = h('div');
  const out = h('div', { class: 'btc-out' });
  const listOut = h('div', { class: 'btc-list' });
  const getBtn = h('button', { type: 'submit' }, 'Get deposit address');
  const listBtn = h('button', { type: 'button', class: 'secondary' }, 'Show on-chain addresses');
  const form = h('form', { class: 'btc-form' },
    field('Address type', type, 'The wallet’s unused address of this type, or a new one once it was paid. Deposits are credited after their confirmations.'),
    err,
    h('div', { class: 'actions' }, getBtn, listBtn));

  let stop = () => {};
  ctx.signal.addEventListener('abort', () => stop());
  const refuse = (e) => {
    if (unavailable(e)) {
      app.onchain = false;
      replace(section, section.firstChild, unavailableNote());
    } else if (e.name !== 'AbortError') {
      err.append(errorBox(e));
    }
  };
  let list = null;
  const showList = async () => {
    if (!list) list = addressList(ctx, listOut, refuse);
    await list.load();
  };
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.replaceChildren();
    try {
      const addr = await busy(form, () => post('/v1/me/bitcoin/address', { type: type.value }, { signal: ctx.signal }));
      app.onchain = true;
      stop();
      stop = showAddress(ctx, out, addr);
      if (list) list.load();
    } catch (x) {
      refuse(x);
    }
  });
  listBtn.addEventListener('click', async () => {
    err.replaceChildren();
    try {
      await busy(form, showList);
      listBtn.remove(); // the list stays, read again as addresses change
    } catch (x) {
      refuse(x);
    }
  });
  section.append(form, out, listOut);
  if (app.onchain === true) listBtn.click(); // known to work: show the list at once
  return section;
}

// showAddress shows a deposit address in out with its QR code, and the
// deposits that pay it as they come; it returns the way to stop polling.
function showAddress(ctx, out, addr) {
  const amount = h('input', { type: 'text', name: 'btc_amount', inputmode: 'numeric', autocomplete: 'off' });
  const uriText = h('p', { class: 'mono wrap small', id: 'btc-uri' });
  const qrBox = h('div', { class: 'btc-qr' });
  const amountErr = h('p', { class: 'hint', 'aria-live': 'polite' });
  const copyURI = h('span');
  const draw = () => {
    const text = amount.value.trim();
    const msat = text ? satsToMsat(text) : 0;
    amountErr.textContent = msat === null ? 'Type a whole number of sats, or leave it empty.' : '';
    const uri = bip21(addr.address, msat ? msat / 1000 : 0);
    uriText.textContent = uri;
    replace(qrBox, qrSVG(uri, 'QR code of the bitcoin address'));
    replace(copyURI, copyButton(uri, 'Copy bitcoin: URI'));
  };
  amount.addEventListener('input', draw);
  const deposits = h('div', { class: 'btc-deposits', role: 'status', 'aria-live': 'polite' },
    h('p', { class: 'hint' }, 'Waiting for a deposit…'));
  const card = h('div', { class: 'btc-address', 'data-address': addr.address },
    h('p', { class: 'label' }, 'Deposit address'),
    h('p', {}, h('code', { class: 'wrap', id: 'btc-address' }, addr.address)),
    h('p', { class: 'hint' }, `${addr.address_type}${addr.used ? ' · already paid: get a new one to receive again' : ''}`),
    qrBox,
    field('Amount in the QR code (sats, optional)', amount),
    amountErr,
    uriText,
    h('div', { class: 'actions' }, copyButton(addr.address, 'Copy address'), copyURI),
    deposits);
  draw();
  replace(out, card);

  // The deposits paying it, read while one may come or is confirming.
  let timer = null;
  let stopped = false;
  const show = (invs) => {
    if (!invs.length) return;
    replace(deposits, h('ul', { class: 'btc-deposit-list' }, invs.map((inv) => {
      const o = inv.bitcoin_output || {};
      const line = inv.status === 'Settled'
        ? `${formatMsat(inv.amount_msat)} received and credited${inv.payment_time ? ` ${formatTime(inv.payment_time)}` : ''}.`
        : `${formatMsat(inv.amount_msat)} seen, ${o.confirmations || 0} confirmation${o.confirmations === 1 ? '' : 's'}: credited once confirmed.`;
      return h('li', { 'data-status': inv.status }, statusBadge(inv.status), ' ', line,
        ' ', h('a', { href: `#/activity/invoices/${encodeURIComponent(inv.id)}` }, 'Details'));
    })));
  };
  const read = async () => {
    timer = null;
    try {
      const invs = (await get(`/v1/me/invoices${query({ ledger: 'Onchain', limit: 100 })}`, { signal: ctx.signal }))
        .filter((inv) => inv.bitcoin_output && inv.bitcoin_output.address === addr.address);
      show(invs);
      // Wait on while nothing came or something confirms.
      if (!stopped && (!invs.length || invs.some((inv) => inv.status === 'Pending'))) timer = setTimeout(read, POLL_MS);
    } catch (e) {
      if (e.name !== 'AbortError' && !stopped) timer = setTimeout(read, POLL_MS * 3);
    }
  };
  ctx.on((msg) => {
    const data = msg.event && msg.event.data;
    if (msg.type === 'refresh' || msg.type === 'reset'
      || (msg.type === 'onchain.deposit' && data && data.bitcoin_output && data.bitcoin_output.address === addr.address)) {
      clearTimeout(timer);
      read();
    }
  });
  read();
  return () => { stopped = true; clearTimeout(timer); };
}

// addressList lists the wallet's deposit addresses in out.
function addressList(ctx, out, refuse) {
  const load = async () => {
    const addrs = await get(`/v1/me/bitcoin/addresses${query({ limit: 100, order_direction: 'desc' })}`, { signal: ctx.signal });
    replace(out, h('section', { class: 'btc-addresses', 'aria-labelledby': 'btc-addresses-h' },
      h('h3', { id: 'btc-addresses-h' }, 'On-chain addresses'),
      addrs.length
        ? h('ul', { class: 'btc-address-list' }, addrs.map(row))
        : h('p', { class: 'empty' }, 'No deposit addresses yet.')));
  };
  const row = (a) => {
    const remove = h('button', { type: 'button', class: 'danger' }, 'Delete address');
    const actions = h('div', { class: 'key-actions' }, remove);
    const li = h('li', { class: 'key', 'data-address': a.address },
      h('div', { class: 'key-main' },
        h('code', { class: 'wrap' }, a.address),
        h('span', { class: 'hint' }, `${a.address_type} · ${a.used ? 'used' : 'unused'} · created ${formatTime(a.created_at)}`)),
      actions);
    remove.addEventListener('click', () => {
      const sure = h('button', { type: 'button', class: 'danger' }, 'Delete it now');
      const keep = h('button', { type: 'button', class: 'secondary' }, 'Keep it');
      replace(actions, h('span', { class: 'hint' }, 'It is never handed out again; a deposit still sent to it is credited.'), sure, keep);
      keep.addEventListener('click', () => replace(actions, remove));
      sure.addEventListener('click', async () => {
        try {
          await busy(actions, () => del(`/v1/me/bitcoin/addresses/${encodeURIComponent(a.id)}`, { signal: ctx.signal }));
          await load();
        } catch (x) {
          if (x.name !== 'AbortError') actions.append(errorBox(x));
        }
      });
    });
    return li;
  };
  return {
    load: async () => {
      try {
        await load();
      } catch (e) {
        refuse(e);
      }
    },
  };
}
