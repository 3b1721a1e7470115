// The forms of a plugin on the Plugins screen: the grant (a checklist of
// the scopes its manifest declares, and the wallet it acts on) and the
// configuration (a form made from its config schema, checked by the API).
import { post, request } from '../api.js';
import { h, field, errorBox, busy } from '../dom.js';

// What each scope lets a plugin do, in words, next to its name.
const SCOPE_TEXT = {
  'read:wallet': 'read the wallet and its balance',
  'write:wallet': 'change wallets',
  'read:transaction': 'read invoices and payments',
  'write:transaction': 'create invoices and send payments: it can spend the wallet’s money',
  'read:ln_address': 'read Lightning Addresses',
  'write:ln_address': 'create and change Lightning Addresses',
  'read:ln_node': 'read the Lightning node',
  'write:ln_node': 'act on the Lightning node',
  'read:btc_address': 'read on-chain addresses',
  'write:btc_address': 'create on-chain addresses',
  'read:api_key': 'read API keys',
  'write:api_key': 'create and revoke API keys',
  'nostr:sign': 'sign Nostr events with the server’s key',
};

// scopeText says what a scope lets a plugin do.
export function scopeText(scope) {
  if (SCOPE_TEXT[scope]) return SCOPE_TEXT[scope];
  if (scope.startsWith('http:outbound:')) return `send HTTP requests to ${scope.slice('http:outbound:'.length)}`;
  if (scope.startsWith('well-known:')) return `answer /.well-known/${scope.slice('well-known:'.length)} at this server’s address`;
  return '';
}

// isPermission reports whether scope is one of the twelve permission
// scopes, which the admin grants only if the admin holds it.
const isPermission = (scope) => /^(read|write):/.test(scope);

// walletName names a wallet for a person: its user, and its label.
export function walletName(w) {
  return w.label ? `${w.user_id} · ${w.label}` : w.user_id;
}

function actions(...buttons) { return h('div', { class: 'actions' }, buttons); }

// grantForm enables plugin p: the scopes picked among those it declares
// (those granted before, else all the admin may give, are checked) and a
// wallet (the one granted before, else the admin's own). wallets may be
// null when they could not be read. onDone(info) is called once enabled.
export function grantForm(p, { app, wallets, signal, onDone, onCancel }) {
  const mine = app.permissions; // empty when unknown (an API key)
  const before = new Set(p.granted || []);
  const boxes = (p.scopes || []).map((s) => {
    const lacking = isPermission(s) && mine.length > 0 && !mine.includes(s);
    return h('input', {
      type: 'checkbox', name: 'scopes', value: s, id: `grant-${p.name}-${s}`,
      checked: !lacking && (before.size ? before.has(s) : true), disabled: lacking,
    });
  });
  const rows = boxes.map((b) => h('div', { class: 'check grant' }, b,
    h('label', { for: b.id }, h('code', {}, b.value),
      h('span', { class: 'grant-text' }, [scopeText(b.value), b.disabled ? ' (you do not hold it)' : ''].filter(Boolean).join('')))));
  const own = app.me;
  const list = wallets || [own];
  const wallet = h('select', { name: 'wallet_id' },
    h('option', { value: '' }, 'No wallet'),
    list.map((w) => h('option', { value: w.id }, w.id === own.id ? `${walletName(w)} (yours)` : walletName(w))));
  wallet.value = p.wallet_id || own.id;
  const err = h('div');
  const cancel = h('button', { type: 'button', class: 'secondary', onclick: onCancel }, 'Cancel');
  const form = h('form', { class: 'plugin-form', 'aria-label': `Enable ${p.name}` },
    h('h3', {}, `Enable ${p.name}`),
    h('fieldset', { class: 'grants' }, h('legend', {}, 'Scopes to grant'),
      rows.length ? rows : h('p', { class: 'hint' }, 'It asks for no scope.')),
    field('Wallet it acts on', wallet, 'Its invoices and payments are this wallet’s, and it hears this wallet’s events.'),
    err,
    actions(h('button', { type: 'submit' }, 'Grant and enable'), cancel));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.replaceChildren();
    const body = { scopes: boxes.filter((b) => b.checked).map((b) => b.value) };
    if (wallet.value) body.wallet_id = wallet.value;
    try {
      const info = await busy(form, () => post(`/v1/plugins/${encodeURIComponent(p.name)}/enable`, body, { signal }));
      onDone(info);
    } catch (x) {
      if (x.name !== 'AbortError') err.append(errorBox(x));
    }
  });
  return form;
}

// missingConfig lists the required keys of p's schema that have no value.
export function missingConfig(p) {
  const values = p.config || {};
  return Object.entries(p.config_schema || {}).filter(([k, f]) => f.required && !(k in values)).map(([k]) => k);
}

// configValue reads what a person typed for a field of type f.type: the
// value to send, or undefined to leave the key out (its default then
// applies). A number that does not read as one is sent as typed, for the
// API to refuse with its reason.
export function configValue(f, input) {
  if (f.type === 'boolean') return input.checked;
  const text = input.value;
  if (f.type === 'integer' || f.type === 'number') {
    const t = text.trim();
    if (t === '') return undefined;
    return /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t) ? Number(t) : t;
  }
  return text === '' ? undefined : text;
}

const MASK = '********'; // how the API shows a secret that is set

// configForm sets p's configuration (PUT /v1/plugins/{name}/config) with
// one control per key of its schema, filled with the values it has. An
// empty field is left out: the API then unsets the key (its default
// applies), except a secret, which it keeps; an optional secret that is
// set has a "Clear <key>" box, which sends null. The API checks the
// values: its refusal is shown, and the key it names marked.
// onDone(info) is called once saved.
export function configForm(p, { signal, onDone, onCancel }) {
  const schema = p.config_schema || {};
  const values = p.config || {};
  const inputs = {};
  const clears = {}; // "Clear <key>" of each optional secret that is set
  const parts = Object.keys(schema).sort().map((k) => {
    const f = schema[k];
    const id = `config-${p.name}-${k}`;
    const label = f.required ? `${k} (required)` : k;
    const have = values[k];
    const notes = [f.description];
    if (f.default !== undefined && f.type !== 'boolean') notes.push(`Default: ${f.default}`);
    if (f.type === 'boolean') {
      const box = h('input', { type: 'checkbox', name: k, id, checked: Boolean(have ?? f.default ?? false) });
      inputs[k] = box;
      return h('div', { class: 'field', 'data-key': k }, h('div', { class: 'check' }, box, h('label', { for: id }, label)),
        notes.filter(Boolean).length ? h('p', { class: 'hint' }, notes.filter(Boolean).join(' · ')) : null);
    }
    let input;
    let clear = null;
    if (f.secret) {
      // Left empty, the key is left out and the API keeps the secret it has.
      input = h('input', { type: 'password', name: k, id, autocomplete: 'new-password' });
      notes.push(have === MASK ? 'Set, never shown back. Leave it empty to keep it, or type a new one to replace it.' : 'Secret: never shown back.');
      if (have === MASK && !f.required) {
        const box = h('input', { type: 'checkbox', name: `${k}-clear`, id: `${id}-clear` });
        box.addEventListener('change', () => { input.disabled = box.checked; });
        clears[k] = box;
        clear = h('div', { class: 'check' }, box, h('label', { for: box.id }, `Clear ${k}`));
      }
    } else {
      const numeric = f.type === 'integer' || f.type === 'number';
      input = h('input', { type: 'text', name: k, id, autocomplete: 'off', inputmode: numeric ? (f.type === 'integer' ? 'numeric' : 'decimal') : null });
      if (have !== undefined && have !== null) input.value = String(have);
      if (numeric) notes.push(f.type === 'integer' ? 'A whole number.' : 'A number.');
      if (!f.required && f.default === undefined) notes.push('Leave it empty to unset it.');
    }
    inputs[k] = input;
    const div = field(label, input, notes.filter(Boolean).join(' · ') || null);
    if (clear) div.append(clear);
    div.dataset.key = k;
    return div;
  });
  const err = h('div');
  const cancel = h('button', { type: 'button', class: 'secondary', onclick: onCancel }, 'Cancel');
  const form = h('form', { class: 'plugin-form', novalidate: true, 'aria-label': `Configure ${p.name}` },
    h('h3', {}, `Configure ${p.name}`),
    parts.length ? parts : h('p', { class: 'hint' }, 'It has nothing to configure.'),
    err,
    actions(h('button', { type: 'submit' }, 'Save configuration'), cancel));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.replaceChildren();
    for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
    const body = {};
    for (const [k, input] of Object.entries(inputs)) {
      const v = clears[k]?.checked ? null : configValue(schema[k], input);
      if (v !== undefined) body[k] = v;
    }
    try {
      const info = await busy(form, () => request('PUT', `/v1/plugins/${encodeURIComponent(p.name)}/config`, body, { signal }));
      onDone(info);
    } catch (x) {
      if (x.name === 'AbortError') return;
      err.append(errorBox(x));
      // "config price_msat: want an integer", "config content is required"
      const m = /\bconfig (?:key ")?([a-z][a-z0-9_]*)/.exec(x.message || '');
      if (m && inputs[m[1]]) {
        inputs[m[1]].setAttribute('aria-invalid', 'true');
        inputs[m[1]].focus();
      }
    }
  });
  return form;
}
