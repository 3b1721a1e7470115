// Settings: the wallet's currency, change the admin password, sign out.
import { get, post, put, session } from '../api.js';
import { h, field, errorBox, busy } from '../dom.js';
import { providerName } from '../oidc.js';
import { startFiat } from '../fiat.js';

// currencyCard chooses the currency the wallet reads amounts in (GET and
// PUT /v1/me/currency), when the server keeps rates (the wallet record
// has a currency); null otherwise.
function currencyCard(ctx) {
  if (!ctx.app.me.currency) return null;
  const select = h('select', { name: 'currency' });
  const msg = h('div', { 'aria-live': 'polite' });
  const form = h('form', { class: 'card', 'aria-labelledby': 'currency-h' },
    h('h2', { id: 'currency-h' }, 'Currency'),
    h('p', { class: 'hint' }, 'Amounts show in sats and in this currency at the rate of now, and invoices may be asked for in it.'),
    field('Show amounts in', select), msg,
    h('button', { type: 'submit' }, 'Save currency'));
  const fill = (c) => {
    select.replaceChildren(h('option', { value: '', selected: c.default }, `This server's (${c.instance})`),
      ...c.offered.map((code) => h('option', { value: code, selected: !c.default && code === c.currency }, code)));
  };
  get('/v1/me/currency', { signal: ctx.signal }).then(fill, (e) => { if (e.name !== 'AbortError') msg.append(errorBox(e)); });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    msg.replaceChildren();
    try {
      const c = await busy(form, () => put('/v1/me/currency', { currency: select.value || null }, { signal: ctx.signal }));
      ctx.app.me.currency = c.currency;
      await startFiat(c.currency);
      fill(c);
      msg.append(h('p', { class: 'notice' }, `Amounts now show in ${c.currency}.`));
    } catch (x) {
      if (x.name !== 'AbortError') msg.append(errorBox(x));
    }
  });
  return form;
}

export function settings(ctx) {
  const current = h('input', { type: 'password', name: 'current', autocomplete: 'current-password', required: true });
  const next = h('input', { type: 'password', name: 'new', autocomplete: 'new-password', required: true, minlength: 8 });
  const again = h('input', { type: 'password', name: 'confirm', autocomplete: 'new-password', required: true, minlength: 8 });
  const msg = h('div', { 'aria-live': 'polite' });
  const form = h('form', { class: 'card' },
    h('h2', {}, 'Change password'),
    h('p', { class: 'hint' }, 'Every other session is signed out: tokens issued before stop working.'),
    field('Current password', current),
    field('New password', next, 'At least 8 characters.'),
    field('Confirm new password', again),
    msg,
    h('button', { type: 'submit' }, 'Change password'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    msg.replaceChildren();
    if (next.value !== again.value) {
      msg.append(errorBox('The two new passwords differ.'));
      return;
    }
    try {
      await busy(form, async () => {
        await post('/v1/auth/change-password', { current_password: current.value, new_password: next.value }, { signal: ctx.signal });
        // This session's token stopped working too: sign in again with
        // the new password.
        const { token } = await post('/v1/auth/sign-in', { password: next.value }, { signal: ctx.signal });
        ctx.app.flash = 'Password changed. Other sessions are signed out.';
        await ctx.app.signedIn(token);
      });
    } catch (x) {
      if (x.name !== 'AbortError') msg.append(errorBox(x.code === 'wrong_password' || x.status === 422 ? new Error(x.message || 'The current password is wrong.') : x));
    }
  });
  const admin = ctx.app.isAdmin && !session.apiKey && !ctx.app.oidc; // the password is the admin's sign-in
  const noPassword = ctx.app.oidc
    ? `Your password is kept at ${providerName(ctx.app.auth)}, where you sign in: change it there.`
    : 'Only the admin has a password here.';
  return h('div', {},
    h('h1', {}, 'Settings'),
    h('div', { class: 'split' },
      currencyCard(ctx),
      admin ? form : h('section', { class: 'card' }, h('p', {}, noPassword)),
      h('section', { class: 'card', 'aria-labelledby': 'session-h' },
        h('h2', { id: 'session-h' }, 'This session'),
        h('p', {}, `Signed in as ${ctx.app.me.user_id}${session.apiKey ? ' with an API key' : ''}. The session ends when this tab closes.`),
        h('button', { type: 'button', class: 'secondary', onclick: () => ctx.app.signOut() }, 'Sign out'),
        h('h2', {}, 'Coming later'),
        h('p', { class: 'hint' }, 'Lightning Address, zaps and on-chain deposits get their pages here once the server has them; webhooks are under Webhooks.'))));
}
