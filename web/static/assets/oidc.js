// Sign-in at an OpenID Connect provider, for instances with auth.provider
// "oidc": the dashboard is a public client (no secret) using the
// authorization code flow with PKCE (S256) and state; the redirect URI is
// the dashboard's own URL (this origin + "/").
//
// Nothing secret ever sits in a URL the dashboard makes: the provider
// sends the person back with ?code=…&state=…, which callback() takes out of
// the address bar before anything else runs; the code is exchanged at the
// token endpoint in a POST body, and the token is kept in sessionStorage
// like a password sign-in's. The page's Content-Security-Policy lets it
// reach the issuer's origin only (connect-src, form-action), so a provider
// whose endpoints sit on another origin is refused here with a reason.

const PENDING = 'hearth.oidc'; // sessionStorage: {state, verifier, issuer, hash} of the sign-in under way

// redirectURI is the dashboard's URL, as registered at the provider.
export function redirectURI() { return `${location.origin}/`; }

// providerName names the provider on the button: the issuer's host.
export function providerName(auth) {
  try { return new URL(auth.issuer).host; } catch { return 'your identity provider'; }
}

function b64url(bytes) {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomString(n) {
  return b64url(crypto.getRandomValues(new Uint8Array(n)));
}

// challengeOf is the S256 code challenge of a verifier (RFC 7636).
export async function challengeOf(verifier) {
  if (!crypto.subtle) throw new Error('Signing in at the provider needs a secure page: open the dashboard over https (or on localhost).');
  return b64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}

// discover reads the issuer's discovery document and checks what the
// dashboard relies on.
export async function discover(issuer, { signal } = {}) {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  let resp;
  try {
    resp = await fetch(url, { headers: { Accept: 'application/json' }, credentials: 'omit', signal });
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new Error(`The identity provider (${issuer}) cannot be reached.`);
  }
  if (!resp.ok) throw new Error(`The identity provider (${issuer}) answered ${resp.status}.`);
  const doc = await resp.json();
  if (doc.issuer !== issuer) throw new Error(`The identity provider calls itself ${doc.issuer}, not ${issuer}.`);
  const origin = new URL(issuer).origin;
  for (const name of ['authorization_endpoint', 'token_endpoint']) {
    let u;
    try { u = new URL(doc[name]); } catch { throw new Error(`The identity provider has no ${name}.`); }
    if (u.origin !== origin) throw new Error(`The identity provider's ${name} is on ${u.origin}, not on ${origin}: the dashboard reaches the issuer's origin only.`);
  }
  if (Array.isArray(doc.code_challenge_methods_supported) && !doc.code_challenge_methods_supported.includes('S256')) {
    throw new Error('The identity provider does not support PKCE with S256.');
  }
  return doc;
}

// start sends the person to the provider: form is a GET form whose action
// is the authorization endpoint; its hidden fields are filled here, and
// the state and verifier kept for callback().
export async function start(auth, doc, form) {
  const verifier = randomString(32);
  const state = randomString(16);
  const params = {
    response_type: 'code',
    client_id: auth.client_id,
    redirect_uri: redirectURI(),
    scope: auth.scopes || 'openid',
    state,
    code_challenge: await challengeOf(verifier),
    code_challenge_method: 'S256',
  };
  // Providers that issue JWT access tokens per API (Auth0) name it so;
  // the others ignore the parameter.
  if (auth.audience) params.audience = auth.audience;
  // An app's request to connect (/apps/new) is gone back to after the sign-in.
  const back = location.pathname === '/apps/new' ? location.pathname + location.search : '';
  sessionStorage.setItem(PENDING, JSON.stringify({ state, verifier, issuer: auth.issuer, hash: location.hash, back }));
  form.action = doc.authorization_endpoint;
  form.replaceChildren(...Object.entries(params).map(([name, value]) => {
    const i = document.createElement('input');
    i.type = 'hidden';
    i.name = name;
    i.value = value;
    return i;
  }));
  form.submit();
}

// callback takes the provider's answer out of the address bar (at once,
// so that the code is not kept in the history) and returns it, or null
// when the page was not opened by the provider.
export function callback() {
  const q = new URLSearchParams(location.search);
  if (!q.has('state') || !(q.has('code') || q.has('error'))) return null;
  const back = { code: q.get('code'), state: q.get('state'), error: q.get('error'), description: q.get('error_description') };
  history.replaceState(null, '', `${location.pathname}${location.hash}`);
  return back;
}

// claimsOf reads a JWT's claims (not verified: the server checks the
// token; this only picks which one to send it).
export function claimsOf(token) {
  try {
    const part = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    return JSON.parse(atob(part.padEnd(part.length + (4 - part.length % 4) % 4, '=')));
  } catch {
    return null;
  }
}

function forAudience(token, audience) {
  const c = typeof token === 'string' ? claimsOf(token) : null;
  if (!c) return false;
  return (Array.isArray(c.aud) ? c.aud : [c.aud]).includes(audience);
}

// pickToken chooses the token Hearth verifies, one whose "aud" holds its
// audience: the access token when it is such a JWT (the usual case: an API
// registered at the provider), else the ID token when it is (a provider
// whose client id is Hearth's audience).
export function pickToken(answer, audience) {
  if (forAudience(answer.access_token, audience)) return answer.access_token;
  if (forAudience(answer.id_token, audience)) return answer.id_token;
  throw new Error(`The identity provider gave no token for Hearth (audience ${audience}). Its access token must be a JWT for that audience.`);
}

// isAdmin says whether token's roles claim (auth.roles_claim) holds the
// admin role (auth.admin_role), as the server reads it.
export function isAdmin(auth, token) {
  const c = claimsOf(token);
  const roles = c && c[auth.roles_claim || 'roles'];
  return (Array.isArray(roles) ? roles : [roles]).includes(auth.admin_role || 'admin');
}

// finish exchanges the code of back (callback()) for the token to use,
// and returns it with the hash the person was at, and the app's request
// to connect they were reading (back: /apps/new?…, or '').
export async function finish(auth, back) {
  let pending = null;
  try { pending = JSON.parse(sessionStorage.getItem(PENDING) || 'null'); } catch { /* none */ }
  sessionStorage.removeItem(PENDING);
  if (back.error) throw new Error(`The identity provider refused the sign-in: ${back.description || back.error}.`);
  if (!pending || pending.state !== back.state || pending.issuer !== auth.issuer) {
    throw new Error('This sign-in was not started here, or was started twice. Sign in again.');
  }
  const doc = await discover(auth.issuer);
  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    code: back.code,
    redirect_uri: redirectURI(),
    client_id: auth.client_id,
    code_verifier: pending.verifier,
  });
  let resp;
  try {
    resp = await fetch(doc.token_endpoint, { method: 'POST', body, credentials: 'omit', headers: { Accept: 'application/json' } });
  } catch {
    throw new Error('The identity provider\u2019s token endpoint cannot be reached.');
  }
  const answer = await resp.json().catch(() => ({}));
  if (!resp.ok) throw new Error(`The identity provider refused the code: ${answer.error_description || answer.error || resp.status}.`);
  const to = typeof pending.back === 'string' && pending.back.startsWith('/apps/new?') ? pending.back : '';
  return { token: pickToken(answer, auth.audience), hash: pending.hash || '', back: to };
}
