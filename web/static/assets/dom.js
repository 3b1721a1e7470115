// Building the page: every element is made with DOM calls and every
// string goes in as text, never as markup, so a description such as
// <img src=x onerror=alert(1)> shows as those characters.
import { fiatOf, validAmount, currencyAmount } from './fiat.js';

const props = new Set(['value', 'checked', 'disabled', 'selected', 'required', 'readOnly', 'hidden', 'open']);

// h makes an element: h('button', {type: 'button', onclick: fn}, 'Send').
// Attributes named on* take functions (listeners); no style attribute (the
// Content-Security-Policy forbids inline style: use a class).
export function h(tag, attrs, ...children) {
  const el = tag.includes(':')
    ? document.createElementNS('http://www.w3.org/2000/svg', tag.slice(tag.indexOf(':') + 1))
    : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k.startsWith('on')) {
      if (typeof v !== 'function') throw new TypeError(`${k} takes a function`);
      el.addEventListener(k.slice(2), v);
    } else if (k === 'style') {
      throw new TypeError('no inline style: use a class');
    } else if (k === 'class') {
      el.setAttribute('class', Array.isArray(v) ? v.filter(Boolean).join(' ') : v);
    } else if (props.has(k)) {
      el[k] = v;
    } else {
      el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(el, children);
  return el;
}

// append adds children: nodes as they are, anything else as text.
export function append(el, children) {
  for (const c of [children].flat(Infinity)) {
    if (c == null || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

// replace empties el and adds children.
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

let fieldSeq = 0;

// field is a labelled input: the label is visible and tied to the input.
export function field(label, input, hint) {
  const id = input.id || `f${++fieldSeq}`;
  input.id = id;
  const parts = [h('label', { for: id }, label), input];
  if (hint) {
    const hid = `${id}-hint`;
    input.setAttribute('aria-describedby', hid);
    parts.push(h('p', { class: 'hint', id: hid }, hint));
  }
  return h('div', { class: 'field' }, parts);
}

// formatMsat shows an amount of msat in sats: 1234000 → "1,234 sats",
// 1500 → "1.5 sats"; and beside them in the wallet's currency, while it
// has a fresh rate (fiat.js): "1,234 sats (≈ 1.17 EUR)".
export function formatMsat(msat) {
  return formatMsatThen(msat, null);
}

// formatMsatThen is formatMsat of a settled record's amount: beside it,
// what it was worth when it settled (the record's value: "1,234 sats
// (1.17 EUR then)"), else the estimate at the rate of now.
export function formatMsatThen(msat, value) {
  if (msat == null) return '—';
  const n = Number(msat);
  const sign = n < 0 ? '-' : '';
  const a = Math.abs(n);
  let s = Math.trunc(a / 1000).toLocaleString('en-US');
  const rem = a % 1000;
  if (rem) s += `.${String(rem).padStart(3, '0').replace(/0+$/, '')}`;
  if (value) return `${sign}${s} sats (${sign}${value.amount} ${value.currency} then)`;
  const f = fiatOf(a);
  return `${sign}${s} sats${f ? ` (≈ ${sign}${f})` : ''}`;
}

// satsToMsat reads a whole number of sats typed by a person: msat, or
// null when it is not a positive whole number.
export function satsToMsat(text) {
  const t = String(text).trim().replace(/[,_\s]/g, '');
  if (!/^[0-9]+$/.test(t)) return null;
  const sats = Number(t);
  if (!Number.isSafeInteger(sats * 1000) || sats <= 0) return null;
  return sats * 1000;
}

// typedAmount reads an amount a person typed in unit ('sats', or the
// wallet's currency): the request's {amount_msat} or {amount, currency}
// (the server prices it), or {error} to show.
export function typedAmount(text, unit) {
  if (unit && unit !== 'sats') {
    const typed = currencyAmount(text);
    if (!validAmount(typed)) return { error: `Type the amount in ${unit} as a number such as 12.50, more than 0.` };
    return { amount: typed, currency: unit };
  }
  const msat = satsToMsat(text);
  if (msat === null) return { error: 'Type the amount as a whole number of sats, more than 0.' };
  return { amount_msat: msat };
}

// formatTime shows an RFC 3339 time in the browser's locale.
export function formatTime(s) {
  if (!s) return '—';
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? String(s) : d.toLocaleString();
}

// copyButton copies text and says so.
export function copyButton(text, label = 'Copy') {
  const b = h('button', { type: 'button', class: 'secondary' }, label);
  b.addEventListener('click', async () => {
    let ok = false;
    try {
      await navigator.clipboard.writeText(text);
      ok = true;
    } catch {
      // No clipboard permission (an insecure origin, a browser setting):
      // select a copy of the text and ask the browser to copy it.
      const ta = h('textarea', { class: 'offscreen', readonly: true, 'aria-hidden': 'true' });
      ta.value = text;
      document.body.append(ta);
      ta.select();
      try { ok = document.execCommand('copy'); } catch { ok = false; }
      ta.remove();
    }
    b.textContent = ok ? 'Copied' : 'Copy failed: select the text';
    setTimeout(() => { b.textContent = label; }, 2000);
  });
  return b;
}

// errorBox shows an error for a person; role=alert reads it out.
export function errorBox(err) {
  return h('p', { class: 'error', role: 'alert' }, err && err.message ? err.message : String(err));
}

// statusBadge shows a record's status.
export function statusBadge(status) {
  return h('span', { class: ['badge', `badge-${String(status).toLowerCase()}`] }, status);
}

// busy disables a form's controls while fn runs.
export async function busy(form, fn) {
  const controls = [...form.querySelectorAll('button, input, select, textarea')].filter((c) => !c.disabled);
  controls.forEach((c) => { c.disabled = true; });
  form.setAttribute('aria-busy', 'true');
  try {
    return await fn();
  } finally {
    controls.forEach((c) => { c.disabled = false; });
    form.removeAttribute('aria-busy');
  }
}
