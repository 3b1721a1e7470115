// Home: the balance, Receive and Send, and the latest activity, kept
// current by the live events; for the admin, this server's numbers.
import { get } from '../api.js';
import { h, replace, formatMsat, errorBox } from '../dom.js';
import { loadActivity, activityList, debounce, pendingOnchain } from './records.js';
import { statsPanel } from './stats.js';

// How often Home reads again while an on-chain record is pending, or the
// wallet receives on-chain (a deposit seen has no event until credited).
const POLL_MS = 5000;

export function home(ctx) {
  const balance = h('p', { class: 'balance', id: 'balance', 'aria-live': 'polite' }, '…');
  const detail = h('p', { class: 'balance-detail' });
  const recent = h('div', { class: 'recent' }, h('p', { class: 'empty' }, 'Loading…'));
  // The admin also sees this server's numbers (stats.js), once the
  // balance shows that the session may read them.
  const stats = ctx.app.isAdmin ? statsPanel(ctx) : null;

  let timer = null;
  ctx.signal.addEventListener('abort', () => clearTimeout(timer));
  const load = async () => {
    clearTimeout(timer);
    try {
      const read = get('/v1/me/balance', { signal: ctx.signal });
      if (stats) read.then(() => stats.start(), () => {});
      const [b, rows] = await Promise.all([read, loadActivity({}, 10, ctx.signal)]);
      balance.textContent = formatMsat(b.available_msat);
      balance.dataset.msat = String(b.available_msat);
      detail.textContent = b.reserved_msat ? `${formatMsat(b.reserved_msat)} reserved for payments in flight` : '';
      replace(recent, activityList(rows.slice(0, 10), 'No activity yet. Receive some sats to begin.'));
      if (pendingOnchain(rows) || ctx.app.onchain === true) timer = setTimeout(load, POLL_MS);
    } catch (e) {
      if (e.name !== 'AbortError') replace(recent, errorBox(e));
    }
  };
  const reload = debounce(load);
  ctx.on(reload); // every event moves the balance or the list
  load();

  return h('div', { class: 'home' },
    h('h1', {}, 'Wallet'),
    h('section', { class: 'card balance-card', 'aria-labelledby': 'balance-h' },
      h('h2', { id: 'balance-h', class: 'label' }, 'Balance'),
      balance, detail,
      h('div', { class: 'actions' },
        h('a', { class: 'button', href: '#/receive' }, 'Receive'),
        h('a', { class: 'button', href: '#/send' }, 'Send'))),
    stats && stats.element,
    h('section', { class: 'card', 'aria-labelledby': 'recent-h' },
      h('div', { class: 'section-head' },
        h('h2', { id: 'recent-h' }, 'Recent activity'),
        h('a', { href: '#/activity' }, 'All activity')),
      recent));
}
