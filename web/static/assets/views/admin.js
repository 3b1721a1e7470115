// Admin (shown to the admin only; the server enforces it anyway): the
// node and the wallets. The plugins have a view of their own (plugins.js).
import { get, post } from '../api.js';
import { h, replace, field, errorBox, busy, formatMsat, formatTime } from '../dom.js';
import { ALL_SCOPES, scopeBoxes, scopeFieldset, createdKey } from './keys.js';
import { nextPage } from './records.js';

export function admin(ctx) {
  return h('div', {},
    h('h1', {}, 'Admin'),
    h('div', { class: 'split' }, nodeCard(ctx), walletsCard(ctx)));
}

function loading() { return h('p', { class: 'empty' }, 'Loading…'); }

function nodeCard(ctx) {
  const body = h('div', {}, loading());
  get('/v1/lightning-node/info', { signal: ctx.signal }).then((n) => {
    replace(body, h('dl', { class: 'facts' },
      [['Backend', n.backend], ['Alias', n.alias || '—'], ['Network', n.network], ['Block height', n.block_height],
        ['Channels', n.channels], ['External payments', n.external_payments ? 'Yes' : 'No: payments stay inside this server'],
        ['Local balance', formatMsat(n.local_balance_msat)], ['Remote balance', formatMsat(n.remote_balance_msat)],
        ['On-chain balance', `${Number(n.onchain_balance_sat || 0).toLocaleString('en-US')} sats`],
        ['Public key', h('code', { class: 'wrap' }, n.pubkey)]]
        .map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])));
  }).catch((e) => { if (e.name !== 'AbortError') replace(body, errorBox(e)); });
  return h('section', { class: 'card', 'aria-labelledby': 'node-h' }, h('h2', { id: 'node-h' }, 'Lightning node'), body);
}

// WALLETS is how many wallets the Admin view reads at a time.
const WALLETS = 50;

function walletsCard(ctx) {
  const list = h('div', {}, loading());
  const user = h('input', { type: 'text', name: 'user_id', required: true, autocomplete: 'off' });
  const label = h('input', { type: 'text', name: 'label', autocomplete: 'off' });
  const err = h('div');
  const row = (w) => h('tr', {},
    h('td', {}, w.user_id), h('td', {}, w.label || '—'),
    h('td', {}, formatMsat(w.balance && typeof w.balance === 'object' ? w.balance.available_msat : w.balance)),
    h('td', {}, formatTime(w.created_at)));
  // load reads the newest wallets; Show more goes on from the last one
  // shown by the cursor the list's Link header names.
  const load = async () => {
    try {
      let next = '';
      const ws = await get(`/v1/wallets?limit=${WALLETS}`, { signal: ctx.signal, onHeaders: (hd) => { next = nextPage(hd); } });
      const rows = h('tbody', {}, ws.map(row));
      const more = h('button', { type: 'button', class: 'secondary', hidden: !next }, 'Show more wallets');
      more.addEventListener('click', async () => {
        try {
          let after = '';
          const got = await busy(more.parentNode, () => get(next, { signal: ctx.signal, onHeaders: (hd) => { after = nextPage(hd); } }));
          next = after;
          rows.append(...got.map(row));
          more.hidden = !next;
        } catch (e) {
          if (e.name !== 'AbortError') list.append(errorBox(e));
        }
      });
      replace(list, h('table', { class: 'table' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'User'), h('th', { scope: 'col' }, 'Label'), h('th', { scope: 'col' }, 'Balance'), h('th', { scope: 'col' }, 'Created'))),
        rows), h('p', {}, more));
    } catch (e) {
      if (e.name !== 'AbortError') replace(list, errorBox(e));
    }
  };
  const form = h('form', { class: 'inline-form' },
    field('User id', user), field('Label', label), err,
    h('button', { type: 'submit' }, 'Create wallet'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.replaceChildren();
    const body = { user_id: user.value.trim() };
    if (label.value.trim()) body.label = label.value.trim();
    try {
      await busy(form, () => post('/v1/wallets', body, { signal: ctx.signal }));
      form.reset();
      await load();
    } catch (x) {
      if (x.name !== 'AbortError') err.append(errorBox(x));
    }
  });
  load();
  return h('section', { class: 'card', 'aria-labelledby': 'wallets-h' },
    h('h2', { id: 'wallets-h' }, 'Wallets'),
    h('p', { class: 'hint' }, 'A wallet for another user, who signs in here with an API key you make for them.'),
    list, form, userKeyForm(ctx));
}

// userKeyForm makes an API key for another user (POST /v1/api-keys).
function userKeyForm(ctx) {
  const user = h('input', { type: 'text', name: 'key_user_id', required: true, autocomplete: 'off' });
  const name = h('input', { type: 'text', name: 'key_name', required: true, autocomplete: 'off' });
  const boxes = scopeBoxes(ALL_SCOPES, new Set(['read:wallet', 'read:transaction', 'write:transaction']), 'user-scope');
  const err = h('div');
  const created = h('div', { 'aria-live': 'polite' });
  const form = h('form', { class: 'inline-form' },
    h('h3', {}, 'API key for a user'),
    field('Key owner (user id)', user), field('Key name', name),
    scopeFieldset('Key permissions', boxes),
    err,
    h('button', { type: 'submit' }, 'Create key for user'),
    created);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.replaceChildren();
    const permissions = boxes.filter((b) => b.checked).map((b) => b.value);
    if (!permissions.length) {
      err.append(errorBox('Pick at least one permission.'));
      return;
    }
    const owner = user.value.trim();
    try {
      const k = await busy(form, () => post('/v1/api-keys', { user_id: owner, name: name.value.trim(), permissions }, { signal: ctx.signal }));
      replace(created, createdKey(k, owner, () => created.replaceChildren()));
      user.value = '';
      name.value = '';
    } catch (x) {
      if (x.name !== 'AbortError') err.append(errorBox(x));
    }
  });
  return form;
}
