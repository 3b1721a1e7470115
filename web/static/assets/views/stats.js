// This server's numbers, on the admin's Home: payments in the last
// minute, the node, the outbox's consumers and their lag, and a chart of
// the last hour's payments a minute (GET /v1/system/stats, read from the
// server's metrics). They are the numbers of the server that answers:
// with several replicas behind a balancer, each counts its own.
import { get } from '../api.js';
import { h, replace, errorBox } from '../dom.js';

// How often the panel reads again while Home is shown.
const REFRESH_MS = 20000;
// A consumer whose oldest event waits longer than this is shown behind.
const BEHIND_SECONDS = 60;
// The chart's drawing box: a bar and a gap for each of the 60 minutes.
const BAR = 10;
const CHART_H = 100;

// statsPanel returns the panel and start, which reads it (and again every
// REFRESH_MS until ctx.signal ends). Home starts it once its balance has
// loaded: the route needs read:wallet, as the balance does, so a key of
// the admin's without it is never sent to ask.
export function statsPanel(ctx) {
  const body = h('div', { 'aria-live': 'polite' }, h('p', { class: 'empty' }, 'Loading…'));
  let timer = null;
  let started = false;
  ctx.signal.addEventListener('abort', () => clearTimeout(timer));
  const load = async () => {
    clearTimeout(timer);
    try {
      replace(body, renderStats(await get('/v1/system/stats', { signal: ctx.signal })));
    } catch (e) {
      if (e.name === 'AbortError') return;
      replace(body, errorBox(e));
    }
    if (!ctx.signal.aborted) timer = setTimeout(load, REFRESH_MS);
  };
  const element = h('section', { class: 'card stats', 'aria-labelledby': 'stats-h' },
    h('h2', { id: 'stats-h' }, 'This server'),
    h('p', { class: 'hint' }, `Counted by this server since it started (with several replicas, each counts its own); read again every ${REFRESH_MS / 1000} s.`),
    body);
  return {
    element,
    start() {
      if (started) return;
      started = true;
      load();
    },
  };
}

function count(n, one, many) { return `${Number(n).toLocaleString('en-US')} ${n === 1 ? one : many}`; }

// renderStats shows one answer of the route.
export function renderStats(st) {
  const last = st.payments.last_minute;
  const lastText = count(last.settled, 'payment', 'payments') + (last.failed ? `, ${count(last.failed, 'failed', 'failed')}` : '');
  return h('div', {},
    h('dl', { class: 'facts' },
      h('dt', {}, 'Payments in the last minute'), h('dd', { id: 'stats-last-minute', 'data-settled': last.settled }, lastText),
      h('dt', {}, 'Lightning node'), h('dd', { id: 'stats-node' }, nodeText(st.node)),
      h('dt', {}, 'Outbox head'), h('dd', { id: 'stats-head' }, st.outbox ? `event ${st.outbox.head}` : '—')),
    h('h3', { class: 'stats-sub' }, 'Consumers'),
    consumers(st.outbox),
    h('h3', { class: 'stats-sub' }, 'Payments a minute, the last hour'),
    chart(st.payments.minutes, st.since),
    (st.errors || []).map((e) => errorBox(e)));
}

function nodeText(node) {
  if (!node) return '—';
  const name = node.backend ? `${node.backend}: ` : '';
  if (!node.up) return [name, h('span', { class: 'badge badge-failed' }, 'Down')];
  return [name, h('span', { class: 'badge badge-settled' }, 'Up'), ` block height ${Number(node.block_height).toLocaleString('en-US')}`];
}

// consumers lists each durable consumer's lag, those behind highlighted;
// one whose feature is off (state "off": Wallet Connect without relays)
// is shown off, as it reads nothing and lags behind nothing.
function consumers(outbox) {
  if (!outbox) return h('p', { class: 'empty' }, 'No event outbox here.');
  if (!outbox.consumers.length) return h('p', { class: 'empty' }, 'No consumer runs on this server.');
  return h('ul', { class: 'consumers' }, outbox.consumers.map((c) => {
    if (c.state === 'off') {
      return h('li', { class: ['consumer', 'off'], 'data-name': c.name, 'data-state': 'off' },
        h('code', {}, c.name), ' ', h('span', { class: 'badge badge-disabled' }, 'Off'));
    }
    const behind = c.lag_seconds > BEHIND_SECONDS;
    const lag = c.lag_events ? `${count(c.lag_events, 'event', 'events')} behind, the oldest ${Math.round(c.lag_seconds)} s old` : 'caught up';
    return h('li', { class: ['consumer', behind && 'behind'], 'data-name': c.name, 'data-state': 'running' },
      h('code', {}, c.name), ' ', h('span', {}, lag), behind ? [' ', h('span', { class: 'badge badge-failed' }, 'Behind')] : null);
  }));
}

function clock(s) { return new Date(s).toLocaleTimeString('en-US', { hour: '2-digit', minute: '2-digit' }); }

// chart draws the minutes' settled payments as bars, the minute in
// progress last; each bar names its minute and count in its title.
function chart(minutes, since) {
  const most = Math.max(0, ...minutes.map((m) => m.settled));
  const scale = Math.max(1, most);
  const total = minutes.reduce((n, m) => n + m.settled, 0);
  const svg = h('svg:svg', {
    class: 'stats-chart', viewBox: `0 0 ${minutes.length * BAR} ${CHART_H}`, preserveAspectRatio: 'none', role: 'img',
    'aria-label': `Payments settled each minute over the last hour: ${total} in all, at most ${most} in a minute`,
  }, h('svg:line', { class: 'stats-base', x1: 0, y1: CHART_H, x2: minutes.length * BAR, y2: CHART_H }),
  minutes.map((m, i) => {
    const height = m.settled ? Math.max(2, Math.round((m.settled / scale) * (CHART_H - 4))) : 0;
    return h('svg:rect', {
      class: ['bar', i === minutes.length - 1 && 'bar-now'], 'data-count': m.settled,
      x: i * BAR + 1, y: CHART_H - height, width: BAR - 2, height,
    }, h('svg:title', {}, `${clock(m.start)}: ${count(m.settled, 'payment', 'payments')}`));
  }));
  const first = minutes.length ? clock(minutes[0].start) : '';
  const began = since && new Date(since) > new Date(minutes[0]?.start || 0) ? `counting since ${clock(since)}` : '';
  return h('figure', { class: 'stats-figure' }, svg,
    h('figcaption', { class: 'stats-axis' }, h('span', {}, first), h('span', {}, began), h('span', {}, 'now')),
    h('p', { class: 'hint', id: 'stats-hour' }, `${count(total, 'payment', 'payments')} settled in the last hour; at most ${most} in a minute.`));
}
