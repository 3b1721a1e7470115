// Exports of the activity: the server's CSV of every invoice or payment
// that matches the filters, in a span of days (GET /v1/me/…/export),
// saved as the file the server names.
import { session, ApiError, query } from '../api.js';
import { h, field, errorBox, busy, replace } from '../dom.js';

// dayStart is the first instant of a day picked in a date field
// (yyyy-mm-dd), at midnight where the browser is, as RFC 3339 in UTC;
// '' for no day.
export function dayStart(day, plusDays = 0) {
  const m = /^(\d{4})-(\d\d)-(\d\d)$/.exec(day || '');
  if (!m) return '';
  return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + plusDays).toISOString();
}

// exportPath is the path of the export of kind ('invoices' or 'payments')
// with the activity's status and ledger, from the first day to the last,
// both included (the API's to is the instant after).
export function exportPath(kind, { status = '', ledger = '' } = {}, first = '', last = '') {
  return `/v1/me/${kind}/export${query({ format: 'csv', status, ledger, from: dayStart(first), to: dayStart(last, 1) })}`;
}

// applies says whether an export of kind can hold records of the
// filters: an invoice is never Failed and a payment never Expired.
function applies(kind, { kind: shown = '', status = '' }) {
  if (kind === 'invoices') return shown !== 'payments' && status !== 'Failed';
  return shown !== 'invoices' && status !== 'Expired';
}

// exportControls are the export's date fields and a button for each kind
// the filters (filters() → {kind, status, ledger}) show; update shows the
// buttons again after the filters changed.
export function exportControls(filters, signal) {
  const first = h('input', { type: 'date', name: 'export-from' });
  const last = h('input', { type: 'date', name: 'export-to' });
  const note = h('div', { class: 'export-note', 'aria-live': 'polite' });
  const buttons = ['invoices', 'payments'].map((kind) => {
    const b = h('button', { type: 'button', class: 'secondary' }, `Export ${kind} (CSV)`);
    b.addEventListener('click', async () => {
      replace(note);
      if (first.value && last.value && last.value < first.value) {
        replace(note, errorBox(new Error('The last day is before the first.')));
        return;
      }
      try {
        await busy(box, () => download(exportPath(kind, filters(), first.value, last.value), signal));
      } catch (e) {
        if (e.name !== 'AbortError') replace(note, errorBox(e));
      }
    });
    return { kind, b };
  });
  const box = h('fieldset', { class: 'filters export' },
    h('legend', {}, 'Export'),
    h('p', { class: 'hint export-note' }, 'Every record the filters match, as CSV: from the first day to the last, both included (empty: no bound).'),
    field('First day', first), field('Last day', last),
    h('div', { class: 'filter-actions export-actions' }, buttons.map((x) => x.b)),
    note);
  const update = () => {
    const f = filters();
    for (const { kind, b } of buttons) b.hidden = !applies(kind, f);
  };
  update();
  return { el: box, update };
}

// download fetches an export with the session's credential and saves it.
// The server streams it; a connection cut before its end (the server
// failed midway) rejects, and nothing is saved, so a file saved is whole.
export async function download(path, signal) {
  let res;
  try {
    res = await fetch(path, { headers: session.headers(), signal, cache: 'no-store', credentials: 'omit', redirect: 'error' });
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError(0, { reason: 'The server cannot be reached. Check the connection and try again.' });
  }
  if (!res.ok) {
    let body = null;
    try { body = await res.json(); } catch { body = null; }
    throw new ApiError(res.status, body);
  }
  let blob;
  try {
    blob = await res.blob();
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError(0, { reason: 'The export was cut short before its end, and not saved. Try again.' });
  }
  const named = /filename="?([^";]+)"?/.exec(res.headers.get('Content-Disposition') || '');
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: named ? named[1] : 'hearth-export.csv', class: 'offscreen' });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
