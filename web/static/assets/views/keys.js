// API keys: create one with scopes picked from the caller's own and an
// optional budget (its key shown once), list them with their budgets' use,
// revoke one.
import { get, post, del } from '../api.js';
import { h, replace, field, errorBox, busy, formatTime, copyButton } from '../dom.js';
import { budgetFields, budgetUse } from './budget.js';
import { paymentsButton } from './madeby.js';

export const ALL_SCOPES = [
  'read:wallet', 'write:wallet', 'read:transaction', 'write:transaction',
  'read:ln_address', 'write:ln_address', 'read:ln_node', 'write:ln_node',
  'read:btc_address', 'write:btc_address', 'read:api_key', 'write:api_key',
];
const DEFAULT_SCOPES = new Set(['read:wallet', 'read:transaction']);

const expiries = [['', 'Never'], ['2592000', '30 days'], ['7776000', '90 days'], ['31536000', '1 year']];

// scopeBoxes are checkboxes of scopes (their ids prefixed by idPrefix),
// checked when in checked.
export function scopeBoxes(scopes, checked, idPrefix) {
  return scopes.map((s) => h('input', { type: 'checkbox', name: 'permissions', value: s, id: `${idPrefix}-${s.replace(':', '-')}`, checked: checked.has(s) }));
}

// scopeFieldset shows scope boxes with their labels.
export function scopeFieldset(legend, boxes) {
  return h('fieldset', { class: 'scopes' },
    h('legend', {}, legend),
    boxes.map((b) => h('div', { class: 'check' }, b, h('label', { for: b.id }, b.value))));
}

// createdKey shows a key just made, once, with a copy button; Done (or
// leaving the page) forgets it.
export function createdKey(k, owner, onDone) {
  return h('section', { class: 'card created-key', 'aria-labelledby': 'created-h' },
    h('h2', { id: 'created-h' }, `API key ${k.name} created${owner ? ` for ${owner}` : ''}`),
    h('p', {}, 'Copy it now: it is shown only once. Send it in the Api-Key header.'),
    h('div', { class: 'field' },
      h('label', { for: 'new-key' }, 'Key'),
      h('input', { id: 'new-key', type: 'text', class: 'mono', readonly: true, value: k.key })),
    h('div', { class: 'actions' }, copyButton(k.key, 'Copy key'),
      h('button', { type: 'button', class: 'secondary', onclick: onDone }, 'Done')));
}

export function apiKeys(ctx) {
  const mine = ctx.app.permissions.length ? ALL_SCOPES.filter((s) => ctx.app.permissions.includes(s)) : ALL_SCOPES;
  const name = h('input', { type: 'text', name: 'name', required: true, maxlength: 100, autocomplete: 'off' });
  const description = h('input', { type: 'text', name: 'description', maxlength: 500, autocomplete: 'off' });
  const expiry = h('select', { name: 'expiry' }, expiries.map(([v, l]) => h('option', { value: v }, l)));
  const boxes = scopeBoxes(mine, DEFAULT_SCOPES, 'scope');
  const budget = budgetFields('key', 'payments made with this key may spend');
  const err = h('div');
  const created = h('div', { 'aria-live': 'polite' });
  const list = h('div', {}, h('p', { class: 'empty' }, 'Loading…'));

  const form = h('form', { class: 'card' },
    h('h2', {}, 'New API key'),
    field('Name', name),
    field('Description', description),
    field('Expires', expiry),
    scopeFieldset('Permissions', boxes),
    budget.node,
    err,
    h('button', { type: 'submit' }, 'Create API key'));

  const load = async () => {
    try {
      const keys = await get('/v1/me/api-keys', { signal: ctx.signal });
      replace(list, keys.length ? h('ul', { class: 'keys' }, keys.map(keyRow)) : h('p', { class: 'empty' }, 'No API keys.'));
    } catch (e) {
      if (e.name !== 'AbortError') replace(list, errorBox(e));
    }
  };

  const keyRow = (k) => {
    const revoke = h('button', { type: 'button', class: 'danger' }, 'Revoke');
    const below = h('div', { class: 'key-below' });
    const row = h('li', { class: 'key', 'data-id': k.id },
      h('div', { class: 'key-main' },
        h('strong', { class: 'key-name' }, k.name),
        k.description ? h('span', { class: 'hint' }, k.description) : null,
        h('span', { class: 'scopes-list' }, (k.permissions || []).join(', ')),
        budgetUse(k.budget),
        h('span', { class: 'hint' }, `Created ${formatTime(k.created_at)}${k.expires_at ? ` · expires ${formatTime(k.expires_at)}` : ''}`)),
      h('div', { class: 'key-actions' }, paymentsButton(ctx, k.id, k.name, below), revoke),
      below);
    revoke.addEventListener('click', () => {
      const sure = h('button', { type: 'button', class: 'danger' }, `Revoke ${k.name} now`);
      const keep = h('button', { type: 'button', class: 'secondary' }, 'Keep');
      const actions = row.querySelector('.key-actions');
      const before = [...actions.childNodes];
      replace(actions, h('span', { class: 'hint' }, 'Programs using it stop at once.'), sure, keep);
      keep.addEventListener('click', () => replace(actions, ...before));
      sure.addEventListener('click', async () => {
        try {
          await busy(actions, () => del(`/v1/me/api-keys/${encodeURIComponent(k.id)}`, { signal: ctx.signal }));
          await load();
        } catch (x) {
          if (x.name !== 'AbortError') actions.append(errorBox(x));
        }
      });
    });
    return row;
  };

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.replaceChildren();
    const permissions = boxes.filter((b) => b.checked).map((b) => b.value);
    if (!permissions.length) {
      err.append(errorBox('Pick at least one permission.'));
      return;
    }
    const b = budget.read();
    if (b.error) {
      err.append(errorBox(b.error));
      return;
    }
    const body = { name: name.value.trim(), permissions };
    if (b.budget) body.budget = b.budget;
    if (description.value.trim()) body.description = description.value.trim();
    if (expiry.value) body.expiry = Number(expiry.value);
    try {
      const k = await busy(form, () => post('/v1/me/api-keys', body, { signal: ctx.signal }));
      // The key is shown here once and kept nowhere else: leaving the page
      // forgets it.
      replace(created, createdKey(k, '', () => created.replaceChildren()));
      form.reset();
      boxes.forEach((x) => { x.checked = DEFAULT_SCOPES.has(x.value); });
      budget.reset();
      await load();
    } catch (x) {
      if (x.name !== 'AbortError') err.append(errorBox(x));
    }
  });

  load();
  return h('div', {},
    h('h1', {}, 'API keys'),
    h('p', {}, 'An API key lets a program use this wallet with the permissions you pick.'),
    created,
    h('div', { class: 'split' }, form,
      h('section', { class: 'card', 'aria-labelledby': 'keys-h' }, h('h2', { id: 'keys-h' }, 'Your keys'), list)));
}
