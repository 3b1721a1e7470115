// Connect an app from its nostr+walletauth link (NWA): the person pastes
// the link the app shows, sees what the app asks for (the server reads it
// as @getalby/sdk does: POST /v1/me/nwc/walletauth), and approves; the
// connection is made for the app's own key, so no secret is shown or kept.
import { post } from '../api.js';
import { h, replace, field, errorBox, busy, formatMsat, formatTime } from '../dom.js';

const READ = '/v1/me/nwc/walletauth';
const CONNECT = '/v1/me/nwc/connections';

// walletAuthCard is the paste box; onConnected(connection) runs after an
// approval.
export function walletAuthCard(ctx, onConnected) {
  const link = h('textarea', { id: 'nwa-uri', name: 'walletauth', class: 'mono wrap', rows: 4, required: true,
    spellcheck: 'false', placeholder: 'nostr+walletauth://…' });
  const err = h('div');
  const ask = h('div', { 'aria-live': 'polite' });
  const form = h('form', { class: 'card', 'aria-label': 'Connect from a link' },
    h('h2', {}, 'Connect from a link'),
    field('The app\u2019s link', link, 'An app that offers \u201cNostr Wallet Auth\u201d shows a nostr+walletauth:// link or QR code: paste the link here.'),
    err,
    h('button', { type: 'submit' }, 'Read what it asks'),
    ask);

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.replaceChildren();
    ask.replaceChildren();
    const walletauth = link.value.trim();
    try {
      const a = await busy(form, () => post(READ, { walletauth }, { signal: ctx.signal }));
      replace(ask, asked(a, async (approve) => {
        try {
          const c = await busy(approve, () => post(CONNECT, { walletauth }, { signal: ctx.signal }));
          form.reset();
          replace(ask, h('p', { class: 'notice', role: 'status' },
            `${c.name} connected: the app finds the wallet on its relays by itself. Nothing to copy.`));
          await onConnected(c);
        } catch (x) {
          if (x.name !== 'AbortError') approve.append(errorBox(x));
        }
      }));
    } catch (x) {
      if (x.name !== 'AbortError') err.append(errorBox(x));
    }
  });
  return form;
}

// asked shows what a link asks for, with Approve unless it cannot be
// served (then the reason instead).
function asked(a, onApprove) {
  const rows = [
    ['App', a.name],
    ['Its key', a.pubkey],
    ['May do', a.methods.length ? a.methods.join(', ') : 'nothing this wallet serves'],
    a.unsupported && a.unsupported.length ? ['Asks also (not offered here)', a.unsupported.join(', ')] : null,
    ['Budget', a.budget ? `${formatMsat(a.budget.max_msat)}, renewed ${a.budget.renewal}` : 'none: it may spend the whole balance'],
    ['Expires', a.expires_at ? formatTime(a.expires_at) : 'never'],
    ['Relays', a.relays.length ? a.relays.join(', ') : 'none of this server\u2019s'],
    a.refused_relays && a.refused_relays.length ? ['Relays not used', a.refused_relays.join(', ')] : null,
    a.return_to ? ['Then back to', a.return_to] : null,
  ].filter(Boolean);
  const actions = h('div', { class: 'actions' });
  if (a.refusal) {
    actions.append(h('p', { class: 'notice', role: 'alert' }, `This app cannot be connected: ${a.refusal}.`));
  } else {
    const approve = h('button', { type: 'button' }, `Approve ${a.name}`);
    approve.addEventListener('click', () => onApprove(actions));
    actions.append(approve);
  }
  return h('section', { class: 'nwa-ask', 'aria-label': 'What the app asks' },
    h('h3', {}, 'The app asks'),
    h('dl', { class: 'facts' }, rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', { class: k === 'Its key' ? 'mono wrap' : '' }, v)])),
    actions);
}
