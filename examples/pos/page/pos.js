'use strict';
// The point of sale's page. Hearth serves it sandboxed, in an origin of
// its own: it calls only its shop's public routes, posting text/plain
// (no preflight), and keeps nothing: a new sale forgets the last.

const base = location.pathname.replace(/\/+$/, ''); // /v1/plugins/pos/s/<user>
const $ = (id) => document.getElementById(id);
const pollEvery = 500; // ms: the page says Paid within a second of it

let shop = null;
let minor = 0n; // the amount typed, in the currency's minor units
let tip = 0; // the tip's percentage
let polling = null;

function notice(text) { $('notice').textContent = text || ''; }

// format writes minor units with the currency's decimals.
function format(units) {
  const p = shop.places;
  const s = units.toString().padStart(p + 1, '0');
  return p === 0 ? s : s.slice(0, -p) + '.' + s.slice(-p);
}

// toMinor reads a decimal price as minor units.
function toMinor(text) {
  const [whole, frac = ''] = text.split('.');
  return BigInt(whole + frac.padEnd(shop.places, '0').slice(0, shop.places));
}

// withTip is the total with the tip, rounded half up as the plugin does.
function withTip(units) {
  return (units * BigInt(100 + tip) * 2n + 100n) / 200n;
}

function sats(msat) {
  return (msat / 1000).toLocaleString('en-US', { maximumFractionDigits: 3 }) + ' sat';
}

function showRate(el, rate, currency) {
  const perUnit = Number(rate.rate).toLocaleString('en-US', { maximumFractionDigits: 2 });
  el.textContent = `1 ${currency} = ${perUnit} sat` + (rate.fixed ? ' (a rate set by hand)' : '');
  el.dataset.rate = rate.rate;
  el.classList.toggle('fixed', !!rate.fixed);
}

function render() {
  $('amount').textContent = format(minor);
  const total = withTip(minor);
  $('total').textContent = tip ? `Total with a ${tip} % tip: ${format(total)} ${shop.currency}` : '';
  $('charge').disabled = minor === 0n || !shop.rate;
  for (const b of $('tips').querySelectorAll('button')) {
    b.setAttribute('aria-pressed', String(Number(b.dataset.tip) === tip));
  }
}

function show(view) {
  for (const id of ['keypad-view', 'invoice-view', 'receipt-view']) $(id).hidden = id !== view;
}

function key(k) {
  if (k === 'C') minor = 0n;
  else if (k === 'back') minor /= 10n;
  else if (minor < 10n ** 12n) minor = minor * 10n + BigInt(k);
  render();
}

async function call(method, path, body) {
  const init = { method };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { 'Content-Type': 'text/plain' };
  }
  const r = await fetch(base + path, init);
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(data.error || `the server answered ${r.status}`);
  return data;
}

async function charge() {
  notice('');
  $('charge').disabled = true;
  try {
    const sale = await call('POST', '/sale', { amount: format(minor), tip_percent: tip });
    $('due').textContent = `${sale.total} ${sale.currency}`;
    showRate($('due-sats'), sale, sale.currency);
    $('due-sats').textContent = sats(sale.amount_msat) + ' · ' + $('due-sats').textContent;
    $('qr').src = sale.qr;
    $('bolt11').textContent = sale.bolt11;
    show('invoice-view');
    waitFor(sale);
  } catch (e) {
    notice(`Could not charge: ${e.message}`);
    render();
  }
}

function waitFor(sale) {
  stopPolling();
  const check = async () => {
    try {
      const s = await call('GET', '/sale/' + encodeURIComponent(sale.id));
      if (s.paid) {
        stopPolling();
        receipt(sale, s);
        return;
      }
    } catch (e) {
      notice(`Checking the payment: ${e.message}`);
    }
    polling = setTimeout(check, pollEvery);
  };
  polling = setTimeout(check, pollEvery);
}

function stopPolling() {
  if (polling) clearTimeout(polling);
  polling = null;
}

function receipt(sale, status) {
  const rows = [
    ['Amount', `${sale.subtotal} ${sale.currency}`],
    ['Tip', sale.tip_percent ? `${sale.tip} ${sale.currency} (${sale.tip_percent} %)` : 'none'],
    ['Total', `${sale.total} ${sale.currency}`],
    ['In bitcoin', sats(sale.amount_msat)],
    ['Rate', `1 ${sale.currency} = ${sale.rate} sat` + (sale.fixed ? ' (set by hand)' : '')],
    ['Time', new Date(status.payment_time || Date.now()).toLocaleString()],
    ['Sale', sale.id],
  ];
  const dl = $('receipt');
  dl.replaceChildren();
  for (const [k, v] of rows) {
    const dt = document.createElement('dt');
    dt.textContent = k;
    const dd = document.createElement('dd');
    dd.textContent = v;
    dl.append(dt, dd);
  }
  show('receipt-view');
}

function newSale() {
  stopPolling();
  minor = 0n;
  tip = 0;
  $('qr').removeAttribute('src');
  $('bolt11').textContent = '';
  notice('');
  show('keypad-view');
  render();
}

async function start() {
  try {
    shop = await call('GET', '/shop');
  } catch (e) {
    notice(`This point of sale cannot open: ${e.message}`);
    return;
  }
  document.title = shop.title;
  $('title').textContent = shop.title;
  $('currency').textContent = shop.currency;
  if (shop.rate) showRate($('rate'), shop.rate, shop.currency);
  else notice(`No price for ${shop.currency} now: try again in a minute.`);
  for (const t of [0, ...shop.tips]) {
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.tip = String(t);
    b.textContent = t ? `${t} %` : 'No tip';
    b.addEventListener('click', () => { tip = t; render(); });
    $('tips').append(b);
  }
  for (const it of shop.items) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = `${it.name} ${it.price}`;
    b.addEventListener('click', () => { minor += toMinor(it.price); render(); });
    $('items').append(b);
  }
  $('keypad').addEventListener('click', (e) => {
    const k = e.target.closest('button')?.dataset.key;
    if (k) key(k);
  });
  $('charge').addEventListener('click', charge);
  $('cancel').addEventListener('click', newSale);
  $('next').addEventListener('click', newSale);
  newSale();
}

start();
