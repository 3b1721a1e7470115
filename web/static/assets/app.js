// The dashboard: the setup and sign-in screens, then the wallet's views,
// routed by the location's hash (#/send), on top of the public REST API.
// One view has a path of its own: /apps/new, where apps ask to connect
// (views/authorize.js).
import { session, get, post, onUnauthorized, followEvents } from './api.js';
import { startFiat, stopFiat } from './fiat.js';
import { h, replace, errorBox } from './dom.js';
import { welcome, signUp, signIn, oidcSignIn } from './views/auth.js';
import { callback as oidcCallback, finish as oidcFinish, isAdmin as oidcAdmin } from './oidc.js';
import { home } from './views/home.js';
import { receive } from './views/receive.js';
import { send } from './views/send.js';
import { activity, invoiceDetail, paymentDetail } from './views/activity.js';
import { apiKeys } from './views/keys.js';
import { walletConnect } from './views/nwc.js';
import { admin } from './views/admin.js';
import { plugins } from './views/plugins.js';
import { settings } from './views/settings.js';
import { webhooks } from './views/webhooks.js';
import { withdrawLinks } from './views/withdraw.js';
import { lnAddress } from './views/lnaddress.js';
import { zaps } from './views/zaps.js';
import { authorize } from './views/authorize.js';

// authorizing: the page is /apps/new, an app's request to connect, shown
// whatever the hash says, after the sign-in when there is none.
const authorizing = location.pathname === '/apps/new';

// The provider's answer to a sign-in at an OpenID Connect provider
// (?code=…&state=…), taken out of the address bar before anything else.
let oidcBack = oidcCallback();

// The views, by hash path. On-chain gets its row here (and a link in
// nav) when the API has it. A row with a scope is
// left out of nav when the session is known to lack it (a sign-in
// token's permissions; an API key's are not known here, and its view
// says so when the API refuses).
const routes = [
  { path: '/', view: home, nav: 'Home' },
  { path: '/receive', view: receive, nav: 'Receive' },
  { path: '/send', view: send, nav: 'Send' },
  { path: '/activity', view: activity, nav: 'Activity' },
  { path: '/activity/invoices/:id', view: invoiceDetail },
  { path: '/activity/payments/:id', view: paymentDetail },
  { path: '/lightning-address', view: lnAddress, nav: 'Lightning Address', scope: 'read:ln_address' },
  { path: '/zaps', view: zaps, nav: 'Zaps', scope: 'read:transaction' },
  { path: '/api-keys', view: apiKeys, nav: 'API keys' },
  { path: '/wallet-connect', view: walletConnect, nav: 'Wallet Connect', scope: 'read:api_key' },
  { path: '/webhooks', view: webhooks, nav: 'Webhooks', scope: 'read:wallet' },
  { path: '/withdraw-links', view: withdrawLinks, nav: 'Withdraw links', scope: 'read:transaction' },
  { path: '/admin', view: admin, nav: 'Admin', admin: true },
  { path: '/plugins', view: plugins, nav: 'Plugins', admin: true },
  { path: '/settings', view: settings, nav: 'Settings' },
];

const root = document.getElementById('app');

// app is what every view gets: the signed-in wallet, the live events and
// the way out.
const app = {
  me: null, // the caller's wallet (GET /v1/me)
  isAdmin: false,
  permissions: [],
  live: 'off',
  listeners: new Set(),
  stopEvents: null,
  liveLabel: null,
  flash: '', // a message for the next view shown
  // How people sign in and the Lightning Address domain
  // (GET /v1/system/setup): auth is {provider: 'jwt'} or {provider:
  // 'oidc', issuer, audience, client_id, scopes}.
  auth: { provider: 'jwt' },
  domain: '',
  get oidc() { return this.auth.provider === 'oidc'; },

  // on calls fn for each live event ({type, event}) and with {type:
  // 'refresh'} when the records must be read again; it returns the way
  // to stop.
  on(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  },
  emit(msg) {
    for (const fn of [...this.listeners]) {
      try { fn(msg); } catch (e) { console.warn('event listener failed', e); }
    }
  },
  async signedIn(token) {
    session.set(token);
    await start();
  },
  async signedInWithKey(key) {
    session.setKey(key);
    await start();
  },
  signOut(message) {
    stopFiat();
    if (this.stopEvents) this.stopEvents();
    this.stopEvents = null;
    session.clear();
    this.me = null;
    this.isAdmin = false;
    this.permissions = [];
    if (location.hash && location.hash !== '#/') history.replaceState(null, '', '#/');
    showSignIn(message);
  },
  navigate(path) {
    if (location.hash === `#${path}`) render();
    else location.hash = `#${path}`;
  },
  has(permission) { return this.permissions.includes(permission); },
};

onUnauthorized(() => app.signOut('Your session ended. Sign in again.'));

// boot decides the first screen: setup, sign-in, or the wallet.
async function boot() {
  try {
    const setup = await get('/v1/system/setup');
    if (setup.auth) app.auth = setup.auth;
    app.domain = setup.domain || '';
    if (app.oidc && oidcBack && !session.signedIn) {
      const back = oidcBack;
      oidcBack = null; // a code is good once
      let signed;
      try {
        signed = await oidcFinish(app.auth, back);
      } catch (e) {
        screen(oidcSignIn({ auth: app.auth, error: e }));
        return;
      }
      if (signed.back) {
        session.set(signed.token);
        location.replace(signed.back);
        return;
      }
      if (signed.hash) history.replaceState(null, '', signed.hash);
      await app.signedIn(signed.token);
      return;
    }
    if (session.signedIn) {
      await start();
      return;
    }
    if (authorizing && (app.oidc || setup.sign_up_complete)) {
      showSignIn('An app asks to connect to your wallet: sign in to see what it asks for.');
    } else if (app.oidc) {
      showSignIn();
    } else if (!setup.welcome_complete) {
      screen(welcome({ done: async () => { await post('/v1/system/mark-welcome-complete'); await boot(); } }));
    } else if (!setup.sign_up_complete) {
      screen(signUp({ app }));
    } else {
      showSignIn();
    }
  } catch (e) {
    screen(h('main', { class: 'narrow' }, h('h1', {}, 'Hearth'), errorBox(e),
      h('button', { type: 'button', onclick: () => boot() }, 'Try again')));
  }
}

function showSignIn(message) {
  screen(app.oidc ? oidcSignIn({ auth: app.auth, message }) : signIn({ app, message }));
}

// screen shows a page without the wallet's navigation.
function screen(node) {
  teardown();
  replace(root, h('div', { class: 'screen' }, h('header', { class: 'brand-only' }, brand()), node));
  focusHeading();
}

function brand() {
  return h('a', { class: 'brand', href: '/#/' }, h('img', { src: '/assets/icon.svg', alt: '', width: 24, height: 24 }), 'Hearth');
}

// start reads the wallet, starts following its events and shows the view.
async function start() {
  try {
    app.me = await get('/v1/me');
  } catch (e) {
    if (e.status === 401) return; // signed out by onUnauthorized
    throw e;
  }
  // The admin: the password's user, or at an OIDC provider whoever has
  // the admin role in the token (read here only to offer the screens; the
  // server decides).
  app.isAdmin = app.oidc && session.token ? oidcAdmin(app.auth, session.token) : app.me.user_id === 'admin';
  app.permissions = session.permissions();
  await startFiat(app.me.currency); // amounts in the wallet's currency too, while it has a rate
  if (app.stopEvents) app.stopEvents();
  app.stopEvents = followEvents({
    onEvent: (msg) => app.emit(msg),
    onOpen: (resumed) => { if (!resumed) app.emit({ type: 'refresh' }); },
    onState: (state) => {
      app.live = state;
      if (app.liveLabel) setLive(app.liveLabel, state);
    },
  });
  render();
}

function setLive(el, state) {
  const text = {
    live: 'Live', reconnecting: 'Reconnecting…', stopped: 'Offline', off: 'Connecting…',
    forbidden: 'Not live: the key lacks read:transaction',
  }[state] || state;
  el.textContent = text;
  el.className = `live live-${state}`;
}

let current = null; // the view shown: its AbortController

function teardown() {
  if (current) current.abort();
  current = null;
  app.liveLabel = null;
}

function match(path) {
  for (const r of routes) {
    const names = [];
    const re = new RegExp(`^${r.path.replace(/:([a-z]+)/g, (_, n) => { names.push(n); return '([^/]+)'; })}$`);
    const m = re.exec(path);
    if (m) return { route: r, params: Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1])])) };
  }
  return null;
}

// render shows the view of the location's hash inside the wallet's frame.
function render() {
  if (!app.me) return;
  teardown();
  const path = (location.hash || '#/').slice(1) || '/';
  let found = authorizing ? { route: { view: authorize }, params: {} } : match(path);
  if (!found || (found.route.admin && !app.isAdmin)) found = { route: null, params: {} };
  const ctrl = new AbortController();
  current = ctrl;
  const offs = [];
  const ctx = {
    app,
    params: found.params,
    signal: ctrl.signal,
    on(fn) { offs.push(app.on(fn)); },
  };
  ctrl.signal.addEventListener('abort', () => offs.forEach((off) => off()));

  const live = h('span', { class: 'live', role: 'status' });
  setLive(live, app.live);
  app.liveLabel = live;
  const offered = (r) => r.nav && (!r.admin || app.isAdmin) && (!r.scope || !app.permissions.length || app.has(r.scope));
  const links = routes.filter(offered).map((r) => {
    const active = found.route && (found.route === r || (r.path !== '/' && path.startsWith(r.path)));
    return h('a', { href: `/#${r.path}`, 'aria-current': active && !authorizing ? 'page' : null }, r.nav);
  });
  const main = h('main', { id: 'main' });
  replace(root,
    h('a', { class: 'skip', href: '#main', onclick: (e) => { e.preventDefault(); main.focus(); } }, 'Skip to content'),
    h('header', { class: 'top' },
      brand(),
      h('nav', { 'aria-label': 'Main' }, links),
      h('div', { class: 'who' }, live,
        h('span', { class: 'user' }, app.me.user_id),
        h('button', { type: 'button', class: 'link', onclick: () => app.signOut() }, 'Sign out'))),
    main);
  main.tabIndex = -1;
  if (app.flash) {
    main.append(h('p', { class: 'notice', role: 'status' }, app.flash));
    app.flash = '';
  }
  if (!found.route) {
    append404(main);
  } else {
    try {
      main.append(found.route.view(ctx));
    } catch (e) {
      main.append(errorBox(e));
    }
  }
  focusHeading();
}

function append404(main) {
  main.append(h('h1', {}, 'Not found'), h('p', {}, 'There is no such page. ', h('a', { href: '#/' }, 'Go home')));
}

function focusHeading() {
  const h1 = root.querySelector('h1');
  if (h1) {
    h1.tabIndex = -1;
    h1.focus({ preventScroll: true });
  }
}

window.addEventListener('hashchange', () => render());
boot();
