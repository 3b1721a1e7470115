// Admin (shown to the admin only; the server enforces it anyway): the
// node, the wallets, the plugins.
import { get, post } from '../api.js';
import { h, replace, field, errorBox, busy, formatMsat, formatTime } from '../dom.js';
import { ALL_SCOPES, scopeBoxes, scopeFieldset, createdKey } from './keys.js';

export function admin(ctx) {
  return h('div', {},
    h('h1', {}, 'Admin'),
    h('div', { class: 'split' }, nodeCard(ctx), walletsCard(ctx)),
    pluginsCard(ctx));
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

function walletsCard(ctx) {
  const list = h('div', {}, loading());
  const user = h('input', { type: 'text', name: 'user_id', required: true, autocomplete: 'off' });
  const label = h('input', { type: 'text', name: 'label', autocomplete: 'off' });
  const err = h('div');
  const load = async () => {
    try {
      const ws = await get('/v1/wallets?limit=1000', { signal: ctx.signal });
      replace(list, h('table', { class: 'table' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'User'), h('th', { scope: 'col' }, 'Label'), h('th', { scope: 'col' }, 'Balance'), h('th', { scope: 'col' }, 'Created'))),
        h('tbody', {}, ws.map((w) => h('tr', {},
          h('td', {}, w.user_id), h('td', {}, w.label || '—'),
          h('td', {}, formatMsat(w.balance && typeof w.balance === 'object' ? w.balance.available_msat : w.balance)),
          h('td', {}, formatTime(w.created_at)))))));
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

function pluginsCard(ctx) {
  const list = h('div', {}, loading());
  const load = async () => {
    try {
      const ps = await get('/v1/plugins', { signal: ctx.signal });
      replace(list, ps.length ? h('ul', { class: 'plugins' }, ps.map(pluginRow)) : h('p', { class: 'empty' }, 'No plugins.'));
    } catch (e) {
      if (e.name !== 'AbortError') replace(list, errorBox(e));
    }
  };
  const pluginRow = (p) => {
    const panel = h('div', { class: 'plugin-panel' });
    const enabled = p.state === 'enabled' || p.state === 'running';
    const toggle = h('button', { type: 'button', class: enabled ? 'secondary' : '' }, enabled ? `Disable ${p.name}` : `Enable ${p.name}`);
    const logs = h('button', { type: 'button', class: 'secondary' }, `Logs of ${p.name}`);
    toggle.addEventListener('click', async () => {
      if (enabled) {
        try { await busy(panel, () => post(`/v1/plugins/${encodeURIComponent(p.name)}/disable`, undefined, { signal: ctx.signal })); await load(); } catch (x) { panel.append(errorBox(x)); }
        return;
      }
      const mine = ctx.app.permissions; // a permission scope is granted only if the admin holds it
      const boxes = (p.scopes || []).map((s) => h('input', { type: 'checkbox', value: s, id: `grant-${p.name}-${s}`, checked: !/^(read|write):/.test(s) || mine.includes(s) }));
      const confirm = h('button', { type: 'button' }, 'Enable plugin');
      replace(panel, h('fieldset', { class: 'scopes' }, h('legend', {}, `Grant ${p.name}`),
        boxes.length ? boxes.map((b) => h('div', { class: 'check' }, b, h('label', { for: b.id }, b.value))) : h('p', { class: 'hint' }, 'It asks for no scope.')),
      h('p', { class: 'hint' }, 'It acts on your wallet.'), confirm);
      confirm.addEventListener('click', async () => {
        try {
          await busy(panel, () => post(`/v1/plugins/${encodeURIComponent(p.name)}/enable`,
            { scopes: boxes.filter((b) => b.checked).map((b) => b.value), wallet_id: ctx.app.me.id }, { signal: ctx.signal }));
          await load();
        } catch (x) {
          panel.append(errorBox(x));
        }
      });
    });
    logs.addEventListener('click', async () => {
      try {
        const entries = await get(`/v1/plugins/${encodeURIComponent(p.name)}/logs?limit=100`, { signal: ctx.signal });
        replace(panel, entries.length
          ? h('ol', { class: 'logs mono' }, entries.map((l) => h('li', {}, `${formatTime(l.at)} ${l.level} ${l.msg}`)))
          : h('p', { class: 'hint' }, 'No log lines.'));
      } catch (x) {
        replace(panel, errorBox(x));
      }
    });
    // A built-in is part of the server: it is neither enabled nor disabled here.
    const builtin = p.kind === 'builtin';
    return h('li', { class: 'plugin', 'data-name': p.name },
      h('div', { class: 'plugin-main' },
        h('strong', {}, p.name), ` ${p.version} · ${builtin ? 'built-in' : 'WebAssembly'} · `,
        h('span', { class: ['badge', `badge-${p.state}`] }, p.state),
        p.description ? h('p', { class: 'hint' }, p.description) : null,
        p.error ? h('p', { class: 'error' }, p.error) : null),
      h('div', { class: 'actions' }, builtin ? null : toggle, logs),
      panel);
  };
  load();
  return h('section', { class: 'card', 'aria-labelledby': 'plugins-h' }, h('h2', { id: 'plugins-h' }, 'Plugins'), list);
}
