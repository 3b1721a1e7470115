// Zaps (the built-in plugin nostr, NIP-57): the wallet's zaps, newest
// first, each with where its receipt went (each relay's state). Every
// string of a zap (the comment is the sender's) goes in as text.
import { get } from '../api.js';
import { h, replace, errorBox, formatMsat, formatTime } from '../dom.js';
import { bech32Encode } from '../lnurl.js';

function noReadTransaction() {
  return h('p', { class: 'notice', role: 'status' },
    'Zaps are hidden: this key lacks the read:transaction permission. Sign in with a key that has it to see them.');
}

// short shows the start and end of a long identifier.
function short(s) {
  return s.length > 24 ? `${s.slice(0, 12)}…${s.slice(-8)}` : s;
}

function hexBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function bech(hrp, hex) {
  return /^[0-9a-f]{64}$/i.test(hex || '') ? bech32Encode(hrp, hexBytes(hex.toLowerCase())) : String(hex || '');
}

export function zaps(ctx) {
  const { app } = ctx;
  const known = app.permissions.length > 0;
  if (known && !app.has('read:transaction')) {
    return h('div', {}, h('h1', {}, 'Zaps'), noReadTransaction());
  }
  const list = h('div', {}, h('p', { class: 'empty' }, 'Loading…'));
  const refresh = h('button', { type: 'button', class: 'secondary' }, 'Refresh zaps');
  const body = h('section', { class: 'card', 'aria-labelledby': 'zaps-h' },
    h('div', { class: 'section-head' }, h('h2', { id: 'zaps-h' }, 'Received zaps'), refresh), list);
  let forbidden = false;
  let timer = null;
  let polls = 0;
  const settled = new Set(); // zap invoices whose invoice.settled came

  const load = async () => {
    if (forbidden) return null;
    try {
      const zs = await get('/v1/me/zaps?limit=100', { signal: ctx.signal });
      replace(list, zs.length
        ? h('ul', { class: 'keys zaps' }, zs.map(zapRow))
        : h('p', { class: 'empty' }, 'No zaps yet. A zap comes from a Nostr client paying your Lightning Address with zaps allowed.'));
      return zs;
    } catch (e) {
      if (e.name === 'AbortError') return null;
      if (e.status === 403) {
        forbidden = true;
        replace(body, noReadTransaction());
      } else {
        replace(list, errorBox(e));
      }
      return null;
    }
  };
  // follow reads the zaps again every 2 s while a receipt is still on its
  // way (a zap settled but not yet recorded paid, a paid one not yet
  // queued, a relay pending), 30 times at most.
  let chain = 0; // the latest follow's number: an earlier one stops
  const follow = async () => {
    clearTimeout(timer);
    const mine = ++chain;
    const zs = await load();
    if (ctx.signal.aborted || !zs || mine !== chain) return;
    // (The plugin records a zap paid a moment after the invoice's event.)
    const waiting = zs.some((z) => (settled.has(z.invoice_id) && !z.paid_at)
      || (z.paid_at && (!z.relays.length || z.relays.some((r) => r.state === 'pending'))));
    if (waiting && ++polls < 30) timer = setTimeout(follow, 2000);
  };
  ctx.signal.addEventListener('abort', () => clearTimeout(timer));
  refresh.addEventListener('click', () => { polls = 0; follow(); });

  ctx.on(async (msg) => {
    if (msg.type === 'refresh' || msg.type === 'reset') {
      load();
      return;
    }
    const data = msg.event && msg.event.data;
    if (msg.type !== 'invoice.settled' || !data || !data.id) return;
    try {
      // A zap's invoice or another: only a zap's is worth reading again.
      await get(`/v1/me/zaps/${encodeURIComponent(data.id)}`, { signal: ctx.signal });
    } catch {
      return;
    }
    settled.add(data.id);
    polls = 0;
    follow();
  });
  follow();
  return h('div', {},
    h('h1', {}, 'Zaps'),
    h('p', {}, 'Zaps are Nostr tips paid to your Lightning Address. For each, Hearth signs a receipt and publishes it to the relays the sender named; each relay\u2019s state shows here.'),
    body);
}

function zapRow(z) {
  const npub = z.anonymous ? '' : bech('npub', z.sender);
  return h('li', { class: 'key zap', 'data-invoice': z.invoice_id },
    h('div', { class: 'key-main' },
      h('strong', { class: 'zap-amount' }, formatMsat(z.amount_msat)),
      h('span', {}, 'From ', z.anonymous
        ? h('span', { class: 'zap-sender' }, 'anonymous')
        : h('span', { class: 'zap-sender mono', title: npub }, short(npub))),
      z.comment ? h('p', { class: 'zap-comment wrap' }, z.comment) : null,
      z.event_id ? h('span', { class: 'hint' }, 'Note ', h('span', { class: 'mono', title: bech('note', z.event_id) }, short(bech('note', z.event_id)))) : null,
      h('span', { class: 'hint' }, z.paid_at ? `Paid ${formatTime(z.paid_at)}` : `Not paid · asked ${formatTime(z.created_at)}`)),
    h('section', { class: 'zap-relays', 'aria-label': 'Relays' },
      h('h3', {}, 'Receipt'),
      z.relays && z.relays.length
        ? h('ul', { class: 'relays' }, z.relays.map(relayRow))
        : h('p', { class: 'hint' }, z.paid_at ? 'Being signed and queued…' : 'Sent once the zap is paid.')));
}

function relayRow(r) {
  const badge = {
    published: h('span', { class: 'badge badge-enabled' }, 'Published'),
    failed: h('span', { class: 'badge badge-failed' }, 'Failed'),
  }[r.state] || h('span', { class: 'badge badge-pending' }, 'Pending');
  const tries = `${r.attempts} attempt${r.attempts === 1 ? '' : 's'}`;
  let detail;
  if (r.state === 'published') detail = `${formatTime(r.published_at)} · ${tries}`;
  else if (r.state === 'failed') detail = `Gave up after ${tries}`;
  else detail = r.next_attempt_at ? `${tries} · next ${formatTime(r.next_attempt_at)}` : tries;
  return h('li', { class: 'relay', 'data-state': r.state },
    h('div', { class: 'relay-head' }, h('span', { class: 'mono wrap' }, r.url), badge),
    h('p', { class: 'hint' }, detail),
    r.last_error && r.state !== 'published' ? h('p', { class: 'error relay-error wrap' }, `Last error: ${r.last_error}`) : null);
}
