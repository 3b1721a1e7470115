// The authorization page, /apps/new: an app opened it with what it asks
// for in the query (@getalby/sdk's NWCClient.getAuthorizationUrl and
// fromAuthorizationUrl, Bitcoin Connect). The person sees what the app
// asks (the server reads the query: POST /v1/me/nwc/walletauth), may take
// methods away and lower the budget, and approves: the connection is made
// for the app's own key, so no secret is shown or kept. The window that
// opened the page is told the wallet's key and relays (postMessage
// {type: 'nwc:success', relayUrls, walletPubkey, lud16}), then return_to
// is followed when it is an http(s) address.
import { post } from '../api.js';
import { h, replace, errorBox, busy, formatMsat, formatTime } from '../dom.js';
import { budgetFields } from './budget.js';

const READ = '/v1/me/nwc/walletauth';
const CONNECT = '/v1/me/nwc/connections';

// webAddress is raw as a URL when it is an http(s) address, else null:
// return_to is never followed to javascript:, data: or anything else.
export function webAddress(raw) {
  if (!raw) return null;
  try {
    const u = new URL(raw);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u : null;
  } catch {
    return null;
  }
}

// openerOrigin is the origin the opener is told at: return_to's, else
// the opener page's (the referrer it sent), else any ('*': the message
// holds nothing secret, the app's key is its own).
function openerOrigin(returnTo) {
  const back = webAddress(returnTo) || webAddress(document.referrer);
  return back ? back.origin : '*';
}

export function authorize(ctx) {
  const query = location.search.slice(1);
  const body = h('div', { 'aria-live': 'polite' }, h('p', { class: 'empty' }, 'Reading what the app asks…'));
  const page = h('div', {},
    h('h1', {}, 'Connect an app'),
    h('p', { class: 'hint' }, 'An app asks to connect to this wallet over Nostr Wallet Connect. Nothing is connected until you approve.'),
    body);
  (async () => {
    try {
      const ask = await post(READ, { authorization: query }, { signal: ctx.signal });
      replace(body, askForm(ctx, query, ask));
    } catch (e) {
      if (e.name !== 'AbortError') replace(body, errorBox(e), leave('Back to the wallet'));
    }
  })();
  return page;
}

// leave is the way out that connects nothing: the window closes when an
// app opened it (the app hears that it was closed), else the wallet.
function leave(text) {
  return h('button', { type: 'button', class: 'secondary', onclick: () => {
    if (window.opener) window.close();
    else location.assign('/#/wallet-connect');
  } }, text);
}

// askForm shows what the app asks, lets the person narrow it, and
// approves.
function askForm(ctx, query, ask) {
  const facts = [
    ['App', ask.name],
    ['Its key', ask.pubkey],
    ask.isolated ? ['Wallet', 'a new wallet of its own (a sub-wallet), with its own balance'] : null,
    ['Expires', ask.expires_at ? formatTime(ask.expires_at) : 'never'],
    ['Relays', ask.relays.join(', ') || 'none of this server\u2019s'],
    ask.unsupported && ask.unsupported.length ? ['Asks also (not offered here)', ask.unsupported.join(', ')] : null,
    ask.refused_relays && ask.refused_relays.length ? ['Relays not used', ask.refused_relays.join(', ')] : null,
    webAddress(ask.return_to) ? ['Then back to', ask.return_to] : null,
  ].filter(Boolean);
  const list = h('dl', { class: 'facts' }, facts.flatMap(([k, v]) => [h('dt', {}, k), h('dd', { class: k === 'Its key' ? 'mono wrap' : '' }, v)]));
  if (ask.refusal) {
    return h('section', { class: 'card', 'aria-label': 'What the app asks' }, list,
      h('p', { class: 'notice', role: 'alert' }, `This app cannot be connected: ${ask.refusal}.`), leave('Close'));
  }
  const boxes = ask.methods.map((m) => h('input', { type: 'checkbox', name: 'methods', value: m, id: `ask-${m}`, checked: true }));
  const budget = budgetFields('ask', 'the app may spend');
  budget.set(ask.budget);
  const err = h('div');
  const approve = h('button', { type: 'submit' }, `Approve ${ask.name}`);
  const form = h('form', { class: 'card', 'aria-label': 'What the app asks' },
    list,
    h('fieldset', { class: 'scopes methods' }, h('legend', {}, 'What the app may do'),
      h('p', { class: 'hint' }, 'Untick what it should not do.'),
      boxes.map((b) => h('div', { class: 'check' }, b, h('label', { for: b.id }, b.value)))),
    ask.budget ? h('p', { class: 'hint' }, `It asks for a budget of ${formatMsat(ask.budget.max_msat)}, renewed ${ask.budget.renewal}: you may lower it.`) : null,
    budget.node,
    err,
    h('div', { class: 'actions' }, approve, leave('Deny')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.replaceChildren();
    const methods = boxes.filter((b) => b.checked).map((b) => b.value);
    const b = budget.read();
    let problem = b.error || (methods.length ? '' : 'Leave the app at least one thing it may do, or deny it.');
    if (!problem && ask.budget && (!b.budget || b.budget.max_msat > Number(ask.budget.max_msat))) {
      problem = `The budget may be lowered, not raised or removed: at most ${formatMsat(ask.budget.max_msat)}.`;
    }
    if (problem) {
      err.append(h('p', { class: 'error', role: 'alert' }, problem));
      return;
    }
    try {
      const c = await busy(form, () => post(CONNECT, { authorization: query, methods, budget: b.budget || undefined }, { signal: ctx.signal }));
      connected(form, ask, c);
    } catch (x) {
      if (x.name !== 'AbortError') err.append(errorBox(x));
    }
  });
  return form;
}

// connected tells the app's window, then goes back to the app.
function connected(form, ask, c) {
  if (window.opener) {
    window.opener.postMessage({ type: 'nwc:success', relayUrls: c.relays, walletPubkey: c.wallet_pubkey, lud16: c.lud16 },
      openerOrigin(ask.return_to));
  }
  replace(form, h('p', { class: 'notice', role: 'status' }, `${c.name} connected. Nothing to copy: the app found the wallet by itself.`),
    h('p', {}, h('a', { href: '/#/wallet-connect' }, 'See your connected apps')));
  const back = webAddress(ask.return_to);
  if (back) location.assign(back.href);
}
