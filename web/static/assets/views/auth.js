// The first-run screens (welcome, sign-up) and sign-in: with the admin's
// password or an API key, or at the OpenID Connect provider.
import { get, post } from '../api.js';
import { h, field, errorBox, busy } from '../dom.js';
import { discover, start, providerName } from '../oidc.js';

const MIN_PASSWORD = 8;

export function welcome({ done }) {
  const err = h('div');
  return h('main', { class: 'narrow' },
    h('h1', {}, 'Welcome to Hearth'),
    h('p', {}, 'Hearth is your own Lightning wallet server. This dashboard runs on its REST API: what you do here, a program can do with an API key.'),
    h('p', {}, 'First, choose the admin password. It signs you in here and protects every wallet on this server.'),
    err,
    h('button', {
      type: 'button',
      onclick: async (e) => {
        e.currentTarget.disabled = true;
        try { await done(); } catch (x) { err.replaceChildren(errorBox(x)); e.target.disabled = false; }
      },
    }, 'Get started'));
}

export function signUp({ app }) {
  const pw = h('input', { type: 'password', name: 'password', autocomplete: 'new-password', required: true, minlength: MIN_PASSWORD });
  const again = h('input', { type: 'password', name: 'confirm', autocomplete: 'new-password', required: true, minlength: MIN_PASSWORD });
  const err = h('div');
  const form = h('form', { class: 'card' },
    field('Password', pw, `At least ${MIN_PASSWORD} characters. A long phrase is best.`),
    field('Confirm password', again),
    err,
    h('button', { type: 'submit' }, 'Sign up'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.replaceChildren();
    if (pw.value !== again.value) {
      err.append(errorBox('The two passwords differ.'));
      return;
    }
    if (pw.value.length < MIN_PASSWORD) {
      err.append(errorBox(`The password needs at least ${MIN_PASSWORD} characters.`));
      return;
    }
    try {
      const { token } = await busy(form, () => post('/v1/auth/sign-up', { password: pw.value }));
      await app.signedIn(token);
    } catch (x) {
      err.append(errorBox(x));
    }
  });
  return h('main', { class: 'narrow' }, h('h1', {}, 'Create the admin password'), form);
}

export function signIn({ app, message }) {
  const pw = h('input', { type: 'password', name: 'password', autocomplete: 'current-password', required: true });
  const err = h('div', {}, message ? h('p', { class: 'notice', role: 'status' }, message) : null);
  const form = h('form', { class: 'card' },
    field('Password', pw),
    err,
    h('button', { type: 'submit' }, 'Sign in'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.replaceChildren();
    try {
      const { token } = await busy(form, () => post('/v1/auth/sign-in', { password: pw.value }));
      await app.signedIn(token);
    } catch (x) {
      err.append(errorBox(x.status === 401 ? new Error('Wrong password.') : x));
    }
  });

  // Any user's wallet, with an API key the admin made for it.
  const key = h('input', { type: 'password', name: 'api_key', autocomplete: 'off', required: true, spellcheck: 'false' });
  const keyErr = h('div');
  const keyForm = h('form', { class: 'card' },
    h('h2', {}, 'Or use an API key'),
    h('p', { class: 'hint' }, 'For a wallet other than the admin’s. The dashboard can do what the key’s permissions allow.'),
    field('API key', key),
    keyErr,
    h('button', { type: 'submit', class: 'secondary' }, 'Sign in with the key'));
  keyForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    keyErr.replaceChildren();
    const secret = key.value.trim();
    try {
      await busy(keyForm, () => get('/v1/me', { headers: { 'Api-Key': secret } }));
      await app.signedInWithKey(secret);
    } catch (x) {
      keyErr.append(errorBox(x.status === 401 ? new Error('This API key is unknown, expired or revoked.') : x));
    }
  });
  return h('main', { class: 'narrow' }, h('h1', {}, 'Sign in'), form, keyForm);
}

// oidcSignIn is the sign-in of an instance whose people sign in at an
// OpenID Connect provider (auth.provider "oidc"): one button that sends
// the person there; no password here.
export function oidcSignIn({ auth, message, error }) {
  const err = h('div', {},
    message ? h('p', { class: 'notice', role: 'status' }, message) : null,
    error ? errorBox(error) : null);
  const name = providerName(auth);
  if (!auth.client_id) {
    return h('main', { class: 'narrow' }, h('h1', {}, 'Sign in'), err,
      h('p', {}, `People sign in to this server at ${name}, but the dashboard has no client there: the administrator sets auth.oidc.client_id. Programs can still use tokens from ${name} and API keys.`));
  }
  // The authorization request: a GET form to the provider, filled and sent
  // by start() (the page's policy allows that form-action).
  const out = h('form', { method: 'get', hidden: true });
  const go = h('form', {}, err, h('button', { type: 'submit' }, `Sign in with ${name}`));
  go.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.replaceChildren();
    try {
      await busy(go, async () => start(auth, await discover(auth.issuer), out));
    } catch (x) {
      err.append(errorBox(x));
    }
  });
  return h('main', { class: 'narrow' }, h('h1', {}, 'Sign in'),
    h('p', {}, `Your account is at ${name}. Sign in there and you come back here, signed in.`), go, out);
}
