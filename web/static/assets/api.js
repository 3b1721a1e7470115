// The public REST API, as the dashboard uses it: every request carries the
// session's token in the Authorization header, never in a URL.

const TOKEN_KEY = 'hearth.token';
const API_KEY = 'hearth.api-key';

function read(name) {
  try { return sessionStorage.getItem(name); } catch { return null; }
}

// The session's credential — a sign-in token (the admin's password) or an
// API key (any user's wallet) — lives in sessionStorage: it survives a
// reload of the tab but not the tab itself, is not shared with other
// tabs, and is never sent by the browser on its own (unlike a cookie, so
// no CSRF). A script injected into the page could read it, which is why
// the page allows no script but its own (Content-Security-Policy) and
// renders every string as text. It goes in a header, never in a URL.
export const session = {
  get token() { return read(TOKEN_KEY); },
  get apiKey() { return read(API_KEY); },
  get signedIn() { return Boolean(this.token || this.apiKey); },
  set(token) {
    sessionStorage.removeItem(API_KEY);
    sessionStorage.setItem(TOKEN_KEY, token);
  },
  setKey(key) {
    sessionStorage.removeItem(TOKEN_KEY);
    sessionStorage.setItem(API_KEY, key);
  },
  clear() {
    try {
      sessionStorage.removeItem(TOKEN_KEY);
      sessionStorage.removeItem(API_KEY);
    } catch { /* storage off */ }
  },
  // headers are the credential's request headers.
  headers() {
    const t = this.token;
    if (t) return { Authorization: `Bearer ${t}` };
    const k = this.apiKey;
    return k ? { 'Api-Key': k } : {};
  },
  // The permissions a sign-in token carries (its claims, not verified
  // here: the server checks every request; this only picks what to
  // offer). Empty when unknown, as for an API key.
  permissions() {
    const t = this.token;
    if (!t) return [];
    try {
      const part = t.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
      const claims = JSON.parse(atob(part.padEnd(part.length + (4 - part.length % 4) % 4, '=')));
      return Array.isArray(claims.permissions) ? claims.permissions : [];
    } catch {
      return [];
    }
  },
};

// ApiError is an error answer of the API: {status, reason, code}.
export class ApiError extends Error {
  constructor(status, body) {
    const reason = (body && typeof body.reason === 'string' && body.reason) || `The server answered ${status}`;
    super(reason);
    this.status = status;
    this.code = (body && body.code) || '';
  }
}

let unauthorized = () => {};

// onUnauthorized sets what happens when the server refuses the token (it
// expired, or the password changed elsewhere).
export function onUnauthorized(fn) { unauthorized = fn; }

// request sends one request and returns the decoded answer (null for 204);
// onHeaders, when given, is handed a successful answer's headers.
export async function request(method, path, body, { headers = {}, signal, onHeaders } = {}) {
  const h = { Accept: 'application/json', ...session.headers(), ...headers };
  const token = session.signedIn;
  // A request that gets no answer in a minute fails, rather than leave a
  // button busy for ever on a half-open connection.
  const limit = AbortSignal.timeout(60000);
  const init = { method, headers: h, signal: signal ? AbortSignal.any([signal, limit]) : limit, cache: 'no-store', credentials: 'omit', redirect: 'error' };
  if (body !== undefined) {
    h['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    if (e.name === 'TimeoutError') throw new ApiError(0, { reason: 'The server did not answer in time. Try again.' });
    throw new ApiError(0, { reason: 'The server cannot be reached. Check the connection and try again.' });
  }
  if (res.status === 204) return null;
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!res.ok) {
    if (res.status === 401 && token && path !== '/v1/auth/change-password') unauthorized();
    throw new ApiError(res.status, data);
  }
  if (onHeaders) onHeaders(res.headers);
  return data;
}

export const get = (path, opts) => request('GET', path, undefined, opts);
export const post = (path, body, opts) => request('POST', path, body === undefined ? {} : body, opts);
export const del = (path, opts) => request('DELETE', path, undefined, opts);
export const patch = (path, body, opts) => request('PATCH', path, body, opts);
export const put = (path, body, opts) => request('PUT', path, body, opts);

// query builds a query string of the parameters that are set.
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== '' && v != null) q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

// followEvents follows the wallet's server-sent events (GET /v1/me/events)
// with fetch, so that the token goes in a header. It calls onEvent for
// each event, onOpen each time the stream (re)opens, and onState with
// 'live', 'reconnecting', 'forbidden' (the credential may not read
// events: it stops) or 'stopped'. After a dropped connection it
// resumes after the last event id it saw (Last-Event-ID), so no event is
// missed; before it has seen one, onOpen tells the caller to read the
// records again (an event may have come while it was away). It returns a
// function that stops it.
export function followEvents({ onEvent, onOpen, onState }) {
  let lastID = null;
  let stopped = false;
  let ctrl = null;
  let delay = 1000;
  const idle = 45000; // heartbeats come every 15 s: silence this long is a dead link

  async function connect() {
    const mine = new AbortController();
    ctrl = mine;
    let watchdog = setTimeout(() => mine.abort(), idle);
    try {
      const h = { Accept: 'text/event-stream', ...session.headers() };
      if (lastID !== null) h['Last-Event-ID'] = lastID;
      const res = await fetch('/v1/me/events', { headers: h, signal: mine.signal, cache: 'no-store', credentials: 'omit' });
      if (res.status === 401) {
        stopped = true;
        unauthorized();
        return;
      }
      if (res.status === 403) {
        // The credential lacks read:transaction: no live updates, and no
        // point in asking again.
        stopped = true;
        onState('forbidden');
        return;
      }
      if (!res.ok || !res.body) throw new Error(`event stream answered ${res.status}`);
      delay = 1000;
      onState('live');
      onOpen(lastID !== null);
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      const push = sseParser(dispatch);
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        clearTimeout(watchdog);
        watchdog = setTimeout(() => mine.abort(), idle);
        push(value);
      }
    } finally {
      clearTimeout(watchdog); // each attempt's own: it never cuts a later one
    }
  }

  function dispatch(ev) {
    let data = null;
    try { data = JSON.parse(ev.data); } catch { return; }
    if (ev.id !== null && ev.id !== '') lastID = ev.id;
    onEvent({ type: ev.type === 'message' ? data.type : ev.type, event: data });
  }

  (async () => {
    while (!stopped) {
      try {
        await connect();
      } catch {
        // dropped: resume below
      }
      if (stopped) return;
      onState('reconnecting');
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 15000);
    }
    onState('stopped');
  })();

  return () => {
    stopped = true;
    if (ctrl) ctrl.abort();
  };
}

// sseParser reads a text/event-stream in chunks as they come: push(chunk)
// calls dispatch({id, type, data}) for each complete event (data lines
// joined by \n; comments and heartbeats skipped). Lines end with LF, CR
// or CRLF, even one split across two chunks.
export function sseParser(dispatch) {
  let buf = '';
  let ev = { id: null, type: 'message', data: [] };
  return (chunk) => {
    buf += chunk;
    let nl;
    while ((nl = buf.search(/\r\n|\r|\n/)) >= 0) {
      if (nl === buf.length - 1 && buf[nl] === '\r') break; // a \n may follow in the next chunk
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + (buf.startsWith('\r\n', nl) ? 2 : 1));
      if (line === '') {
        if (ev.data.length) dispatch({ id: ev.id, type: ev.type, data: ev.data.join('\n') });
        ev = { id: null, type: 'message', data: [] };
        continue;
      }
      if (line.startsWith(':')) continue; // a heartbeat or comment
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let val = colon < 0 ? '' : line.slice(colon + 1);
      if (val.startsWith(' ')) val = val.slice(1);
      if (field === 'id') ev.id = val;
      else if (field === 'event') ev.type = val;
      else if (field === 'data') ev.data.push(val);
    }
  };
}
