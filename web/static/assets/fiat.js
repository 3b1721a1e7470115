// Amounts in the wallet's currency beside sats. The currency is on the
// wallet record (GET /v1/me's currency, while the server runs its rates
// plugin); its rate is GET /v1/rates/{currency}, read again every minute.
// Without either, amounts show in sats alone. What is shown here is for
// reading: an amount typed in the currency is sent as typed, and the
// server converts it (POST /v1/me/invoices and /v1/me/payments {amount,
// currency}).
import { get } from './api.js';

export const fiat = {
  currency: '', // the wallet's, or '' for none
  rate: null, // {currency, rate (sat per unit), at, fixed} while fresh
};

let timer = null;

// startFiat follows currency's rate ('' for none).
export async function startFiat(currency) {
  stopFiat();
  fiat.currency = currency || '';
  if (!fiat.currency) return;
  await readRate();
  timer = setInterval(readRate, 60000);
}

// stopFiat stops following the rate and forgets it.
export function stopFiat() {
  if (timer) clearInterval(timer);
  timer = null;
  fiat.currency = '';
  fiat.rate = null;
}

async function readRate() {
  try {
    fiat.rate = await get(`/v1/rates/${encodeURIComponent(fiat.currency)}`);
  } catch {
    fiat.rate = null; // no fresh rate: sats alone until there is one
  }
}

// places is how many decimals an amount in currency shows (ISO 4217).
export function places(currency) {
  if (['BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'UYI', 'VND', 'VUV', 'XAF', 'XOF', 'XPF'].includes(currency)) return 0;
  if (['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'].includes(currency)) return 3;
  return 2;
}

// fiatOf is msat in the wallet's currency at its rate ("12.50 EUR"), or
// '' without one.
export function fiatOf(msat) {
  if (!fiat.rate || msat == null) return '';
  const p = places(fiat.rate.currency);
  const v = Number(msat) / 1000 / Number(fiat.rate.rate);
  return `${v.toLocaleString('en-US', { minimumFractionDigits: p, maximumFractionDigits: p })} ${fiat.rate.currency}`;
}

// validAmount reports whether text is an amount in the wallet's currency
// as the server takes it: a positive decimal of its decimals at most.
export function validAmount(text) {
  const p = places(fiat.currency);
  const re = p === 0 ? /^[0-9]{1,12}$/ : new RegExp(`^[0-9]{1,12}(\\.[0-9]{1,${p}})?$`);
  return re.test(text) && Number(text) > 0;
}

// currencyAmount reads an amount typed in a currency: "1,234.50" (commas
// between thousands) or "12,50" (a decimal comma) as "1234.50" and
// "12.50"; anything else as typed, for validAmount to refuse.
export function currencyAmount(text) {
  const t = String(text).trim().replace(/[_\s]/g, '');
  if (t.includes(',') && t.includes('.')) return t.replace(/,/g, '');
  if (/^[0-9]+,[0-9]{1,3}$/.test(t)) return t.replace(',', '.');
  return t;
}
