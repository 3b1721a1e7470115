// Webhooks (the built-in plugin webhooks): the wallet's signed webhooks
// listed, one created (its signing secret shown once, with how to verify
// a delivery), a test event sent, the deliveries read, one deleted.
import { get, post, del } from '../api.js';
import { h, replace, field, errorBox, busy, formatTime, copyButton } from '../dom.js';

// DEFAULT_TYPES are the events a new webhook asks for unless the person
// unticks them. The others a person may pick (deposits, the events the
// plugins emit, such as withdraw.claimed) come from the server, unticked.
export const DEFAULT_TYPES = ['invoice.settled', 'payment.settled', 'payment.failed'];

// The signature header, as plugins/webhooks signs it.
const SIGNATURE = 'Hearth-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "t.body")>';

// noReadWallet is the note shown in place of the screen when the session's
// credential lacks read:wallet.
function noReadWallet() {
  return h('p', { class: 'notice', role: 'status' },
    'Webhooks are hidden: this key lacks the read:wallet permission. Sign in with a key that has it to see or create them.');
}

export function webhooks(ctx) {
  const { app } = ctx;
  const known = app.permissions.length > 0; // a sign-in token's; unknown for an API key
  if (known && !app.has('read:wallet')) {
    return h('div', {}, h('h1', {}, 'Webhooks'), noReadWallet());
  }
  const canWrite = !known || app.has('write:wallet');

  const url = h('input', { type: 'text', name: 'url', inputmode: 'url', required: true, maxlength: 2048, autocomplete: 'off', spellcheck: 'false', placeholder: 'https://example.com/hearth' });
  const description = h('input', { type: 'text', name: 'description', maxlength: 256, autocomplete: 'off' });
  const typeBox = (ev) => h('input', { type: 'checkbox', name: 'events', value: ev, id: `event-${ev.replaceAll('.', '-')}`, checked: DEFAULT_TYPES.includes(ev) });
  let boxes = DEFAULT_TYPES.map(typeBox);
  const checks = () => boxes.map((b) => h('div', { class: 'check' }, b, h('label', { for: b.id }, b.value)));
  const types = h('div', {}, checks());
  const err = h('div');
  const created = h('div', { 'aria-live': 'polite' });
  const list = h('div', {}, h('p', { class: 'empty' }, 'Loading…'));
  const body = h('div', {});
  const rows = new Map(); // webhook id → its row's controls

  const form = h('form', { class: 'card' },
    h('h2', {}, 'New webhook'),
    field('Endpoint URL', url, 'https, where your server receives a POST for each event.'),
    h('fieldset', { class: 'scopes' },
      h('legend', {}, 'Events'),
      types),
    field('Description', description, 'For you: what this endpoint is.'),
    err,
    h('button', { type: 'submit' }, 'Create webhook'));

  // The types the server knows, the ticks kept.
  get('/v1/me/webhooks/event-types', { signal: ctx.signal }).then((r) => {
    const ticked = new Set(boxes.filter((b) => b.checked).map((b) => b.value));
    boxes = r.event_types.map(typeBox);
    boxes.forEach((b) => { b.checked = ticked.has(b.value); });
    replace(types, checks());
  }).catch(() => {}); // the default types stay

  let forbidden = false; // the API said the key lacks read:wallet: no asking again
  const load = async () => {
    if (forbidden) return;
    try {
      const hooks = await get('/v1/me/webhooks', { signal: ctx.signal });
      const open = new Set([...rows].filter(([, r]) => r.isOpen()).map(([id]) => id));
      rows.forEach((r) => r.stop());
      rows.clear();
      replace(list, hooks.length
        ? h('ul', { class: 'keys webhooks' }, hooks.map((w) => hookRow(w, open.has(w.id))))
        : h('p', { class: 'empty' }, 'No webhooks.'));
    } catch (e) {
      if (e.name === 'AbortError') return;
      if (e.status === 403) {
        forbidden = true;
        replace(body, noReadWallet());
      }
      else replace(list, errorBox(e));
    }
  };

  const hookRow = (w, reopen) => {
    const panel = h('div', { class: 'plugin-panel' });
    const note = h('div', { class: 'hook-note', 'aria-live': 'polite' });
    const toggle = h('button', { type: 'button', class: 'secondary' }, 'Show deliveries');
    const test = h('button', { type: 'button', class: 'secondary' }, 'Send test event');
    const remove = h('button', { type: 'button', class: 'danger' }, 'Delete webhook');
    const actions = h('div', { class: 'key-actions' }, w.active && canWrite ? test : null, toggle, canWrite ? remove : null);
    let deliveries = null; // the open panel's
    const row = h('li', { class: 'key webhook', 'data-id': w.id },
      h('div', { class: 'key-main' },
        h('strong', { class: 'wrap' }, w.url),
        w.description ? h('span', { class: 'hook-desc' }, w.description) : null,
        h('span', { class: 'scopes-list' }, (w.events || []).join(', ')),
        h('span', {}, w.active
          ? h('span', { class: 'badge badge-enabled' }, 'Active')
          : [h('span', { class: 'badge badge-failed' }, 'Disabled'), ' ', h('span', { class: 'hook-reason' }, w.disabled_reason || 'No reason given.')]),
        w.active ? null : h('span', { class: 'hint' }, 'A disabled webhook gets no more events: delete it and create it again.'),
        h('span', { class: 'hint' }, `Created ${formatTime(w.created_at)}`)),
      actions, note, panel);

    // checkState reads the webhook again: when it was disabled meanwhile
    // (its deliveries failed for too long), the list is shown anew.
    const checkState = async () => {
      try {
        const now = await get(`/v1/me/webhooks/${encodeURIComponent(w.id)}`, { signal: ctx.signal });
        if (now.active !== w.active) await load();
      } catch {
        // the list says it at its next reading
      }
    };
    const openPanel = () => {
      deliveries = deliveryPanel(ctx, w.id, checkState);
      replace(panel, deliveries.node);
      toggle.textContent = 'Hide deliveries';
    };
    toggle.addEventListener('click', () => {
      if (deliveries) {
        deliveries.stop();
        deliveries = null;
        panel.replaceChildren();
        toggle.textContent = 'Show deliveries';
      } else {
        openPanel();
      }
    });
    test.addEventListener('click', async () => {
      note.replaceChildren();
      try {
        const { event_id: id } = await busy(actions, () => post(`/v1/me/webhooks/${encodeURIComponent(w.id)}/test`, undefined, { signal: ctx.signal }));
        note.append(h('p', { class: 'hint', role: 'status' }, `Test event ${id} queued; its delivery shows below.`));
        if (!deliveries) openPanel();
        deliveries.follow((as) => as.some((a) => a.event_id === id));
      } catch (x) {
        if (x.name !== 'AbortError') note.append(errorBox(x));
      }
    });
    remove.addEventListener('click', () => {
      const sure = h('button', { type: 'button', class: 'danger' }, 'Delete this webhook now');
      const keep = h('button', { type: 'button', class: 'secondary' }, 'Keep');
      replace(actions, h('span', { class: 'hint' }, 'Deliveries stop at once; its queue and history are deleted too.'), sure, keep);
      keep.addEventListener('click', () => replace(actions, w.active && canWrite ? test : null, toggle, remove));
      sure.addEventListener('click', async () => {
        try {
          await busy(actions, () => del(`/v1/me/webhooks/${encodeURIComponent(w.id)}`, { signal: ctx.signal }));
          if (deliveries) deliveries.stop();
          await load();
        } catch (x) {
          if (x.name !== 'AbortError') note.append(errorBox(x));
        }
      });
    });
    rows.set(w.id, {
      isOpen: () => Boolean(deliveries),
      stop: () => { if (deliveries) deliveries.stop(); },
      // an event of a type it takes: its delivery shows soon
      event: (type) => { if (deliveries && (w.events || []).includes(type)) deliveries.follow(null); },
    });
    if (reopen) openPanel();
    return row;
  };

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.replaceChildren();
    const events = boxes.filter((b) => b.checked).map((b) => b.value);
    if (!events.length) {
      err.append(errorBox('Pick at least one event.'));
      return;
    }
    const req = { url: url.value.trim(), events };
    if (description.value.trim()) req.description = description.value.trim();
    try {
      const w = await busy(form, () => post('/v1/me/webhooks', req, { signal: ctx.signal }));
      // The secret is shown here once and kept nowhere else: leaving the
      // page forgets it.
      replace(created, createdWebhook(w, () => created.replaceChildren()));
      form.reset();
      boxes.forEach((b) => { b.checked = DEFAULT_TYPES.includes(b.value); });
      await load();
    } catch (x) {
      if (x.name !== 'AbortError') err.append(errorBox(x));
    }
  });

  ctx.on((msg) => {
    if (msg.type === 'refresh' || msg.type === 'reset') load();
    else for (const r of rows.values()) r.event(msg.type);
  });
  load();
  replace(body,
    created,
    h('div', { class: 'split' },
      canWrite ? form : h('section', { class: 'card' }, h('p', {}, 'This key lacks write:wallet: it can read webhooks, not create or delete them.')),
      h('section', { class: 'card', 'aria-labelledby': 'hooks-h' }, h('h2', { id: 'hooks-h' }, 'Your webhooks'), list)));
  return h('div', {},
    h('h1', {}, 'Webhooks'),
    h('p', {}, 'A webhook POSTs this wallet\u2019s events to a URL of yours, signed, in order, retried until it answers 2xx.'),
    body);
}

// createdWebhook shows a webhook just made with its signing secret, once,
// and how to check a delivery's signature; Done (or leaving the page)
// forgets it.
function createdWebhook(w, onDone) {
  return h('section', { class: 'card created-key', 'aria-labelledby': 'created-h' },
    h('h2', { id: 'created-h' }, 'Webhook created'),
    h('p', {}, 'Copy its signing secret now: it is shown only once.'),
    h('div', { class: 'field' },
      h('label', { for: 'new-secret' }, 'Signing secret'),
      h('input', { id: 'new-secret', type: 'text', class: 'mono', readonly: true, value: w.secret || '' })),
    h('div', { class: 'actions' }, copyButton(w.secret || '', 'Copy secret'),
      h('button', { type: 'button', class: 'secondary', onclick: onDone }, 'Done')),
    h('h3', {}, 'Verifying a delivery'),
    h('p', { class: 'hint' }, 'Each delivery is a POST of the event as JSON with the header'),
    h('p', {}, h('code', { class: 'wrap' }, SIGNATURE)),
    h('p', { class: 'hint' }, 'Compute HMAC-SHA256 with the secret over t, a dot and the raw body, compare it with v1 in constant time, '
      + 'and refuse a t more than 5 minutes from your clock. An event may come twice: keep its id and act on it once.'));
}

// deliveryPanel lists a webhook's delivery attempts, newest first, with a
// Refresh button. follow(done) reads them again every second until done
// (given the attempts) holds, or, with no done, until they change; at
// most 60 times. After a refresh and a follow, recheck reads the webhook's
// state.
function deliveryPanel(ctx, id, recheck) {
  const list = h('div', {}, h('p', { class: 'empty' }, 'Loading…'));
  const refresh = h('button', { type: 'button', class: 'secondary' }, 'Refresh deliveries');
  const ctrl = new AbortController();
  const signal = AbortSignal.any([ctx.signal, ctrl.signal]);
  let last = null; // the attempts shown
  let timer = null;
  let following = 0; // the latest follow's number: an earlier one stops at its next tick
  const load = async () => {
    try {
      const as = await get(`/v1/me/webhooks/${encodeURIComponent(id)}/deliveries?limit=50`, { signal });
      last = as;
      replace(list, as.length
        ? h('ol', { class: 'deliveries' }, as.map(attemptRow))
        : h('p', { class: 'empty' }, 'No deliveries yet.'));
      return as;
    } catch (e) {
      if (e.name !== 'AbortError') replace(list, errorBox(e));
      return null;
    }
  };
  refresh.addEventListener('click', async () => {
    await load();
    if (!signal.aborted) recheck();
  });
  const stopFollowing = () => { clearTimeout(timer); timer = null; };
  const follow = (done) => {
    stopFollowing();
    const mine = ++following;
    const before = last ? JSON.stringify(last) : null;
    let n = 0;
    const tick = async () => {
      const as = await load();
      if (signal.aborted || mine !== following) return;
      const ok = as && (done ? done(as) : JSON.stringify(as) !== before);
      if (!ok && ++n < 60) {
        timer = setTimeout(tick, 1000);
      } else {
        timer = null;
        recheck();
      }
    };
    tick();
  };
  signal.addEventListener('abort', stopFollowing);
  load();
  return {
    node: h('section', { class: 'deliveries-panel', 'aria-label': 'Deliveries' },
      h('div', { class: 'section-head' }, h('h3', {}, 'Deliveries'), refresh), list),
    follow,
    stop: () => ctrl.abort(),
  };
}

function attemptRow(a) {
  const ok = a.status_code != null && a.status_code >= 200 && a.status_code < 300;
  const result = a.status_code != null ? `HTTP ${a.status_code}` : 'No answer';
  return h('li', { class: 'delivery', 'data-event': String(a.event_id) },
    h('div', { class: 'delivery-head' },
      h('span', { class: 'mono' }, `${a.event_id < 0 ? 'Test event' : 'Event'} ${a.event_id}`),
      h('span', {}, `attempt ${a.attempt}`),
      h('span', { class: ['badge', ok ? 'badge-enabled' : 'badge-failed'] }, result)),
    a.error && a.error !== result ? h('p', { class: 'error delivery-error' }, a.error) : null,
    h('p', { class: 'hint' }, `${a.duration_ms} ms · ${formatTime(a.at)}`));
}
