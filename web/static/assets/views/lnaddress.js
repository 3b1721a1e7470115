// Lightning Address (the built-in plugin lnurl): the wallet's one address
// user@domain registered, shown with its QR code and a copy button,
// changed (active, Nostr zaps and public key) and deleted after a
// confirm step.
import { get, post, del, request } from '../api.js';
import { h, replace, field, errorBox, busy, formatTime, copyButton } from '../dom.js';
import { qrSVG } from '../qr.js';
import { addressQR, nostrPubkeyHex, npubOf } from '../lnurl.js';

const PATH = '/v1/me/lightning-address';

// noReadAddress is the note shown in place of the screen when the
// session's credential lacks read:ln_address.
function noReadAddress() {
  return h('p', { class: 'notice', role: 'status' },
    'The Lightning Address is hidden: this key lacks the read:ln_address permission. Sign in with a key that has it to see or register one.');
}

// currentAddress reads the wallet again (GET /v1/me): its ln_address,
// user@domain, while it has an active address, else ''. (The domain
// itself, for the forms, is the instance's: app.domain, from GET
// /v1/system/setup.)
export async function currentAddress(ctx) {
  const me = await get('/v1/me', { signal: ctx.signal });
  ctx.app.me = me;
  return me.ln_address || '';
}

// addressBlock shows an address with its QR code (what wallets scan: see
// lnurl.js addressQR) and a button that copies the address.
export function addressBlock(address) {
  return h('div', { class: 'ln-address' },
    h('p', { class: 'ln-address-text' }, h('strong', { class: 'wrap', id: 'ln-address' }, address)),
    qrSVG(addressQR(address), 'QR code of the Lightning Address'),
    h('p', { class: 'hint' }, 'Any Lightning wallet pays this address: typed, pasted, or scanned from the QR code (an LNURL).'),
    h('div', { class: 'actions' }, copyButton(address, 'Copy address')));
}

export function lnAddress(ctx) {
  const { app } = ctx;
  const known = app.permissions.length > 0; // a sign-in token's; unknown for an API key
  if (known && !app.has('read:ln_address')) {
    return h('div', {}, h('h1', {}, 'Lightning Address'), noReadAddress());
  }
  const canWrite = !known || app.has('write:ln_address');
  const body = h('div', {}, h('p', { class: 'empty' }, 'Loading…'));

  const load = async (flash) => {
    let a = null;
    try {
      a = await get(PATH, { signal: ctx.signal });
    } catch (e) {
      if (e.name === 'AbortError') return;
      if (e.status === 403) { replace(body, noReadAddress()); return; }
      if (e.status !== 404) { replace(body, errorBox(e)); return; }
    }
    let address = '';
    if (a && a.active) {
      try { address = await currentAddress(ctx); } catch (e) { if (e.name === 'AbortError') return; }
    }
    replace(body, a ? showAddress(a, address, flash) : registerForm());
  };

  // registerForm registers the wallet's address.
  const registerForm = () => {
    if (!canWrite) return h('section', { class: 'card' }, h('p', {}, 'No Lightning Address yet. This key lacks write:ln_address: it cannot register one.'));
    const username = h('input', { type: 'text', name: 'username', required: true, maxlength: 64, autocomplete: 'off',
      autocapitalize: 'none', spellcheck: 'false', class: 'mono' });
    const domain = app.domain;
    const active = h('input', { type: 'checkbox', name: 'active', id: 'ln-active', checked: true });
    const nostr = nostrFields(false, null);
    const err = h('div');
    const form = h('form', { class: 'card ln-form' },
      h('h2', {}, 'Register an address'),
      h('div', { class: 'field' },
        h('label', { for: 'ln-username' }, 'Username'),
        h('div', { class: 'with-suffix' }, Object.assign(username, { id: 'ln-username' }),
          h('span', { class: 'suffix mono', id: 'ln-domain' }, domain ? `@${domain}` : '@ this server\u2019s domain')),
        h('p', { class: 'hint', id: 'ln-username-hint' }, 'Lower case letters, digits, dot, dash and underscore; 64 at most. One address per wallet.')),
      h('div', { class: 'check' }, active, h('label', { for: active.id }, 'Active: wallets can pay it')),
      nostr.node,
      err,
      h('button', { type: 'submit' }, 'Register address'));
    username.setAttribute('aria-describedby', 'ln-username-hint ln-domain');
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      err.replaceChildren();
      const req = { username: username.value.trim() };
      const n = nostr.read();
      if (n.error) { err.append(errorBox(n.error)); return; }
      Object.assign(req, n.fields);
      let registered = false;
      try {
        await busy(form, async () => {
          await post(PATH, req, { signal: ctx.signal });
          registered = true;
          if (!active.checked) await request('PUT', PATH, { active: false }, { signal: ctx.signal });
        });
        await load('Address registered.');
      } catch (x) {
        if (x.name === 'AbortError') return;
        // Registered, but not turned off: show it as it is, and say why.
        if (registered) await load(`Address registered, but still active: ${x.message}`);
        else err.append(errorBox(x));
      }
    });
    return form;
  };

  // showAddress shows the registered address, the form that changes it,
  // and Delete address.
  const showAddress = (a, address, flash) => {
    const domain = address ? address.slice(address.lastIndexOf('@') + 1) : app.domain;
    const full = address || (domain ? `${a.username}@${domain}` : `${a.username}@`);
    const card = h('section', { class: 'card', 'aria-labelledby': 'ln-h', 'data-active': String(a.active) },
      h('h2', { id: 'ln-h' }, 'Your address'),
      flash ? h('p', { class: 'hint', role: 'status' }, flash) : null,
      a.active
        ? [h('p', { class: 'ln-state' }, h('span', { class: 'badge badge-enabled' }, 'Active')), addressBlock(full)]
        : [h('p', { class: 'ln-address-text' }, h('strong', { class: 'wrap', id: 'ln-address' }, full)),
          h('p', {}, h('span', { class: 'badge badge-failed' }, 'Inactive'), ' Wallets are told this address is unknown; its username stays yours.')],
      a.allows_nostr ? h('p', { class: 'hint' }, 'Nostr zaps allowed.') : null,
      a.nostr_pubkey ? h('p', { class: 'hint wrap' }, `Nostr key ${npubOf(a.nostr_pubkey)}`) : null,
      h('p', { class: 'hint' }, `Registered ${formatTime(a.created_at)}${a.updated_at ? `, changed ${formatTime(a.updated_at)}` : ''}`));
    if (!canWrite) {
      return h('div', { class: 'split' }, card,
        h('section', { class: 'card' }, h('p', {}, 'This key lacks write:ln_address: it can see the address, not change it.')));
    }
    const active = h('input', { type: 'checkbox', name: 'active', id: 'ln-active', checked: a.active });
    const nostr = nostrFields(a.allows_nostr, a.nostr_pubkey);
    const err = h('div');
    const form = h('form', { class: 'card ln-form' },
      h('h2', {}, 'Change it'),
      h('div', { class: 'check' }, active, h('label', { for: active.id }, 'Active: wallets can pay it')),
      nostr.node,
      err,
      h('button', { type: 'submit' }, 'Save'));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      err.replaceChildren();
      const n = nostr.read();
      if (n.error) { err.append(errorBox(n.error)); return; }
      const req = { active: active.checked, allows_nostr: false, ...n.fields };
      try {
        await busy(form, () => request('PUT', PATH, req, { signal: ctx.signal }));
        await load('Saved.');
      } catch (x) {
        if (x.name !== 'AbortError') err.append(errorBox(x));
      }
    });

    const remove = h('button', { type: 'button', class: 'danger' }, 'Delete address');
    const removeBox = h('section', { class: 'card', 'aria-label': 'Delete' },
      h('p', { class: 'hint' }, 'Deleting frees the username: anyone may register it then.'), h('div', { class: 'actions' }, remove));
    const removeErr = h('div');
    remove.addEventListener('click', () => {
      const sure = h('button', { type: 'button', class: 'danger' }, `Delete ${full} now`);
      const keep = h('button', { type: 'button', class: 'secondary' }, 'Keep');
      const actions = h('div', { class: 'actions' }, sure, keep);
      replace(removeBox, h('p', {}, 'Wallets can no longer pay it, and the username is free for anyone.'), actions, removeErr);
      keep.addEventListener('click', () => replace(removeBox,
        h('p', { class: 'hint' }, 'Deleting frees the username: anyone may register it then.'), h('div', { class: 'actions' }, remove)));
      sure.addEventListener('click', async () => {
        removeErr.replaceChildren();
        try {
          await busy(actions, () => del(PATH, { signal: ctx.signal }));
          if (ctx.app.me) ctx.app.me.ln_address = undefined;
          await load();
        } catch (x) {
          if (x.name !== 'AbortError') removeErr.append(errorBox(x));
        }
      });
    });
    return h('div', { class: 'split' }, card, h('div', {}, form, removeBox));
  };

  load();
  return h('div', {},
    h('h1', {}, 'Lightning Address'),
    h('p', {}, 'An address like an email\u2019s, user@domain, that any Lightning wallet pays into this wallet, at any time, for any amount.'),
    body);
}

// nostrFields are the zaps checkbox and the public key field; read()
// returns {fields} for the request or {error}.
function nostrFields(allows, pubkey) {
  const zaps = h('input', { type: 'checkbox', name: 'allows_nostr', id: 'ln-zaps', checked: allows });
  const key = h('input', { type: 'text', name: 'nostr_pubkey', autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false',
    class: 'mono', value: pubkey ? npubOf(pubkey) : '' });
  const node = h('fieldset', { class: 'nostr' },
    h('legend', {}, 'Nostr'),
    h('div', { class: 'check' }, zaps, h('label', { for: zaps.id }, 'Allow Nostr zaps')),
    field('Nostr public key', Object.assign(key, { id: 'ln-nostr' }), 'npub1… or 64 hex digits; needed for zaps.'));
  return {
    node,
    read() {
      const fields = { allows_nostr: zaps.checked };
      const text = key.value.trim();
      if (text) {
        const hex = nostrPubkeyHex(text);
        if (!hex) return { error: `Not a Nostr public key: ${text}. Type an npub1… or 64 hex digits.` };
        fields.nostr_pubkey = hex;
      } else if (zaps.checked) {
        return { error: 'Zaps need a Nostr public key: type your npub.' };
      }
      return { fields };
    },
  };
}
