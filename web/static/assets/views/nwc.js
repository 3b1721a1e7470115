// Wallet Connect (the built-in plugin nwc, NIP-47): connect an app to the
// wallet with the methods it may call, an optional budget and expiry (its
// connection URI, which holds the app's secret, shown once with a QR code),
// list the connections with their budgets' use, revoke one.
import { get, post, del, patch } from '../api.js';
import { h, replace, field, errorBox, busy, formatTime, copyButton } from '../dom.js';
import { qrSVG } from '../qr.js';
import { budgetFields, budgetUse } from './budget.js';
import { walletAuthCard } from './nwa.js';
import { paymentsButton } from './madeby.js';

const PATH = '/v1/me/nwc/connections';
// ANY is the admin's path of every wallet's connections: the admin's list
// shows the sub-wallets' apps and the other users' too.
const ANY = '/v1/nwc/connections';

// DEFAULT_BUDGET is the budget a new connection is offered: 100,000 sats
// a month, which the person may change or clear.
const DEFAULT_BUDGET = { max_msat: 100_000_000, renewal: 'monthly' };

// METHOD_GROUPS are the methods an app may be given, grouped for a person,
// each with the permissions it needs of the caller (plugins/nwc
// methods.go); notifications is the pseudo-method of being sent them.
export const METHOD_GROUPS = [
  { legend: 'Pay', hint: 'Spend from this wallet, within the budget.', methods: [
    ['pay_invoice', ['write:transaction', 'read:transaction']],
    ['multi_pay_invoice', ['write:transaction', 'read:transaction']]] },
  { legend: 'Receive', hint: 'Make invoices that pay into this wallet.', methods: [
    ['make_invoice', ['write:transaction']]] },
  { legend: 'Read', hint: 'See the balance, the payments and the budget.', methods: [
    ['get_balance', ['read:wallet']],
    ['get_info', ['read:wallet']],
    ['get_budget', ['read:wallet']],
    ['lookup_invoice', ['read:transaction']],
    ['list_transactions', ['read:transaction']]] },
  { legend: 'Notifications', hint: 'Be told of payments received and sent.', methods: [
    ['notifications', ['read:transaction']]] },
];

// noRead is the note shown in place of the screen when the session's
// credential lacks read:api_key.
function noRead() {
  return h('p', { class: 'notice', role: 'status' },
    'Wallet Connect is hidden: this key lacks the read:api_key permission. Sign in with a key that has it to see or connect apps.');
}

// noWrite says why this session cannot connect apps.
function noWrite() {
  return h('section', { class: 'card', 'aria-label': 'New connection' },
    h('p', { class: 'notice', role: 'status' }, 'This key lacks the write:api_key permission: it can see the connections, not connect an app or revoke one. Sign in with a key that has it.'));
}

// disabled says that the server has NWC off (422 nwc_disabled).
function disabled() {
  return h('section', { class: 'card', 'aria-label': 'New connection' },
    h('p', { class: 'notice', role: 'status' },
      'Nostr Wallet Connect is off on this server: it has no relays to reach apps through. '
      + 'Its administrator turns it on by setting relays in the [nwc] section of the configuration (relays = "wss://…").'));
}

// day is a date as an <input type=date> takes it, in the browser's zone.
function day(d) {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

export function walletConnect(ctx) {
  const { app } = ctx;
  const known = app.permissions.length > 0; // a sign-in token's; unknown for an API key
  if (known && !app.has('read:api_key')) {
    return h('div', {}, h('h1', {}, 'Wallet Connect'), noRead());
  }
  let canWrite = !known || app.has('write:api_key');

  const name = h('input', { type: 'text', name: 'name', required: true, maxlength: 100, autocomplete: 'off' });
  const boxes = [];
  const groups = METHOD_GROUPS.map((g) => h('fieldset', { class: 'scopes methods' },
    h('legend', {}, g.legend),
    h('p', { class: 'hint' }, g.hint),
    g.methods.map(([m, scopes]) => {
      // A permission the session is known to lack: the API would refuse
      // the method (permission_exceeded), so it is not offered.
      const lacks = known && scopes.some((s) => !app.has(s));
      const box = h('input', { type: 'checkbox', name: 'methods', value: m, id: `nwc-${m}`, checked: !lacks, disabled: lacks });
      boxes.push(box);
      return h('div', { class: 'check' }, box, h('label', { for: box.id }, m));
    })));
  const budget = budgetFields('nwc', 'the app may spend');
  budget.set(DEFAULT_BUDGET);
  const expires = expiryField('nwc-expires');
  // The admin may give the app a wallet of its own: a sub-wallet, with
  // its own balance, made with the connection.
  const isolated = h('input', { type: 'checkbox', name: 'isolated', id: 'nwc-isolated' });
  const sub = app.isAdmin ? h('div', { class: 'check' }, isolated,
    h('label', { for: isolated.id }, 'A wallet of its own (new sub-wallet): the app sees and spends only what you pay into it')) : null;
  const err = h('div');
  const created = h('div', { 'aria-live': 'polite' });
  const list = h('div', {}, h('p', { class: 'empty' }, 'Loading…'));
  const side = h('div', {});
  const body = h('div', {});

  const form = h('form', { class: 'card' },
    h('h2', {}, 'Connect an app'),
    field('Name', name, 'For you: which app this is.'),
    h('fieldset', { class: 'method-groups' }, h('legend', {}, 'What the app may do'), groups),
    budget.node,
    field('Expires on', expires, 'Optional: the connection ends at the end of that day, within a year.'),
    sub,
    err,
    h('button', { type: 'submit' }, 'Connect app'));

  let forbidden = false; // the API said the key lacks read:api_key: no asking again
  const load = async () => {
    if (forbidden) return;
    try {
      const conns = await get(app.isAdmin ? ANY : PATH, { signal: ctx.signal });
      replace(list, conns.length
        ? h('ul', { class: 'keys connections' }, conns.map(connRow))
        : h('p', { class: 'empty' }, 'No apps connected.'));
    } catch (e) {
      if (e.name === 'AbortError') return;
      if (e.status === 403) {
        forbidden = true;
        replace(body, noRead());
      } else if (e.status === 404) {
        replace(body, h('p', { class: 'notice', role: 'status' }, 'Wallet Connect is not on this server: its nwc plugin is not running.'));
      } else {
        replace(list, errorBox(e));
      }
    }
  };

  const connRow = (c) => {
    const expired = c.expires_at && new Date(c.expires_at) <= new Date();
    const revoke = h('button', { type: 'button', class: 'danger' }, 'Revoke');
    const edit = h('button', { type: 'button', class: 'secondary' }, 'Edit');
    const below = h('div', { class: 'key-below' });
    const actions = h('div', { class: 'key-actions' }, paymentsButton(ctx, c.id, c.name, below, app.isAdmin),
      canWrite && !expired ? edit : null, canWrite ? revoke : null);
    edit.addEventListener('click', () => replace(below, editConnection(ctx, c, app.isAdmin ? ANY : PATH, load, () => below.replaceChildren())));
    const row = h('li', { class: 'key connection', 'data-id': c.id },
      h('div', { class: 'key-main' },
        h('strong', { class: 'key-name' }, c.name),
        expired ? h('span', {}, h('span', { class: 'badge badge-expired' }, 'Expired')) : null,
        c.wallet_id !== app.me.id ? h('span', { class: 'hint' }, `On wallet ${c.wallet_id}`) : null,
        h('span', { class: 'scopes-list' }, (c.methods || []).join(', ')),
        c.budget ? budgetUse(c.budget) : h('span', { class: 'hint' }, expired ? 'Expired: it can do nothing more.' : 'No budget: it may spend the whole balance.'),
        h('span', { class: 'hint' }, c.last_used_at ? `Last used ${formatTime(c.last_used_at)}` : 'Never used'),
        h('span', { class: 'hint' }, `Created ${formatTime(c.created_at)}${c.expires_at ? ` · ${expired ? 'expired' : 'expires'} ${formatTime(c.expires_at)}` : ''}`)),
      actions, below);
    revoke.addEventListener('click', () => {
      const sure = h('button', { type: 'button', class: 'danger' }, `Revoke ${c.name} now`);
      const keep = h('button', { type: 'button', class: 'secondary' }, 'Keep');
      const before = [...actions.childNodes];
      replace(actions, h('span', { class: 'hint' }, 'The app is refused at once; its URI is good for nothing after.'), sure, keep);
      keep.addEventListener('click', () => replace(actions, ...before));
      sure.addEventListener('click', async () => {
        try {
          await busy(actions, () => del(`${app.isAdmin ? ANY : PATH}/${encodeURIComponent(c.id)}`, { signal: ctx.signal }));
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
    const methods = boxes.filter((b) => b.checked).map((b) => b.value);
    if (!methods.length) {
      err.append(errorBox('Pick at least one thing the app may do.'));
      return;
    }
    const b = budget.read();
    if (b.error) {
      err.append(errorBox(b.error));
      return;
    }
    const req = { name: name.value.trim(), methods };
    if (b.budget) req.budget = b.budget;
    if (isolated.checked) req.isolated = true;
    if (expires.value) {
      const end = endOfDay(expires.value);
      if (!end) {
        err.append(errorBox(`Not a date: ${expires.value}.`));
        return;
      }
      req.expires_at = end;
    }
    try {
      const c = await busy(form, () => post(PATH, req, { signal: ctx.signal }));
      // The URI holds the app's secret: shown here once and kept nowhere
      // else, so leaving the page forgets it.
      replace(created, createdConnection(c, () => created.replaceChildren()));
      form.reset();
      boxes.forEach((x) => { x.checked = !x.disabled; });
      budget.set(DEFAULT_BUDGET);
      await load();
    } catch (x) {
      if (x.name === 'AbortError') return;
      if (x.code === 'nwc_disabled') {
        replace(side, disabled());
      } else if (x.status === 403) {
        canWrite = false;
        replace(side, noWrite());
        await load(); // without Revoke
      } else {
        err.append(errorBox(x));
      }
    }
  });

  load();
  replace(side, canWrite ? h('div', {}, form, walletAuthCard(ctx, load)) : noWrite());
  replace(body,
    created,
    h('div', { class: 'split' }, side,
      h('section', { class: 'card', 'aria-labelledby': 'conns-h' }, h('h2', { id: 'conns-h' }, 'Connected apps'), list)));
  return h('div', {},
    h('h1', {}, 'Wallet Connect'),
    h('p', {}, 'Nostr Wallet Connect (NIP-47) lets an app — a Nostr client, a game, a shop — use this wallet over Nostr relays, '
      + 'with only the methods you pick, within a budget you set, until you revoke it.'),
    body);
}

// expiryField is a date input for a connection's end, within a year.
function expiryField(id) {
  const today = new Date();
  return h('input', { type: 'date', name: 'expires_on', id, min: day(today),
    max: day(new Date(today.getFullYear(), today.getMonth(), today.getDate() + 364)) });
}

// endOfDay is the end of the day picked (YYYY-MM-DD) in the browser's
// zone, as the API takes it; null for no date.
function endOfDay(value) {
  const end = new Date(`${value}T23:59:59`);
  return Number.isNaN(end.getTime()) ? null : end.toISOString();
}

// editConnection changes connection c in place (PATCH at path): its name, its
// methods, its budget (empty removes it; what the period used stays
// used) and its end (empty: none). onSaved reloads the list; onCancel
// closes the form.
function editConnection(ctx, c, path, onSaved, onCancel) {
  const id = (s) => `edit-${c.id}-${s}`;
  const name = h('input', { type: 'text', name: 'name', id: id('name'), required: true, maxlength: 100, autocomplete: 'off', value: c.name });
  const has = new Set(c.methods || []);
  const boxes = METHOD_GROUPS.flatMap((g) => g.methods.map(([m]) =>
    h('input', { type: 'checkbox', name: 'methods', value: m, id: id(m), checked: has.has(m) })));
  const budget = budgetFields(id('b'), 'the app may spend');
  budget.set(c.budget);
  const expires = expiryField(id('expires'));
  if (c.expires_at) expires.value = day(new Date(c.expires_at));
  const err = h('div');
  const form = h('form', { class: 'edit-connection', 'aria-label': `Edit ${c.name}` },
    h('div', { class: 'field' }, h('label', { for: name.id }, 'Name'), name),
    h('fieldset', { class: 'scopes methods' }, h('legend', {}, 'What the app may do'),
      boxes.map((b) => h('div', { class: 'check' }, b, h('label', { for: b.id }, b.value)))),
    budget.node,
    h('div', { class: 'field' }, h('label', { for: expires.id }, 'Expires on'), expires,
      h('p', { class: 'hint' }, 'Empty: it never expires.')),
    err,
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, `Save ${c.name}`),
      h('button', { type: 'button', class: 'secondary', onclick: onCancel }, 'Cancel')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.replaceChildren();
    const methods = boxes.filter((b) => b.checked).map((b) => b.value);
    const b = budget.read();
    const end = expires.value ? endOfDay(expires.value) : null;
    const problem = (!methods.length && 'Pick at least one thing the app may do.') || b.error
      || (expires.value && !end && `Not a date: ${expires.value}.`);
    if (problem) {
      err.append(errorBox(problem));
      return;
    }
    try {
      await busy(form, () => patch(`${path}/${encodeURIComponent(c.id)}`,
        { name: name.value.trim(), methods, budget: b.budget, expires_at: end }, { signal: ctx.signal }));
      await onSaved();
    } catch (x) {
      if (x.name !== 'AbortError') err.append(errorBox(x));
    }
  });
  return form;
}

// createdConnection shows a connection just made: its URI, once, as text
// and as a QR code, with a copy button; Done (or leaving the page) forgets
// it.
function createdConnection(c, onDone) {
  return h('section', { class: 'card created-key', 'aria-labelledby': 'created-h' },
    h('h2', { id: 'created-h' }, `${c.name} connected`),
    h('p', {}, h('strong', {}, 'Copy or scan it now: it is shown only once. '),
      'The URI holds the app\u2019s secret and Hearth keeps no copy: paste it into the app, or scan the QR code with it, and keep it from anyone else.'),
    h('div', { class: 'field' },
      h('label', { for: 'nwc-uri' }, 'Connection URI'),
      h('textarea', { id: 'nwc-uri', class: 'mono wrap', rows: 6, readonly: true, spellcheck: 'false', value: c.uri || '' })),
    qrSVG(c.uri || '', 'QR code of the connection URI'),
    h('div', { class: 'actions' }, copyButton(c.uri || '', 'Copy URI'),
      h('button', { type: 'button', class: 'secondary', onclick: onDone }, 'Done')));
}
