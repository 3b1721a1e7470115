// Withdraw links (the built-in plugin withdraw, LNURL-withdraw): links
// and sheets of single-use vouchers that let whoever holds one pull sats
// out of the wallet; each link shown with its QR code and copy button, its
// claims read, revoked after a confirm step; a sheet of vouchers printed,
// one voucher per cell. claimSection is Receive's form that claims
// someone else's link into this wallet.
import { get, post, del } from '../api.js';
import { h, replace, field, errorBox, busy, satsToMsat, formatMsat, formatTime, copyButton, statusBadge } from '../dom.js';
import { qrSVG } from '../qr.js';

// linkQR is what a wallet scans: the LUD-01 bech32, upper case.
const linkQR = (l) => `LIGHTNING:${l.lnurl}`;

// amounts says what a link gives.
function amounts(l) {
  return l.min_msat === l.max_msat ? formatMsat(l.max_msat) : `${formatMsat(l.min_msat)} to ${formatMsat(l.max_msat)}`;
}

export function withdrawLinks(ctx) {
  const title = h('input', { type: 'text', name: 'title', maxlength: 120, autocomplete: 'off', value: 'Withdraw' });
  const min = h('input', { type: 'text', name: 'min', inputmode: 'numeric', autocomplete: 'off', required: true, pattern: '[0-9, _]+' });
  const max = h('input', { type: 'text', name: 'max', inputmode: 'numeric', autocomplete: 'off', required: true, pattern: '[0-9, _]+' });
  const uses = h('input', { type: 'number', name: 'uses', min: 1, max: 10000, value: 1 });
  const wait = h('input', { type: 'number', name: 'wait', min: 0, value: 0 });
  const count = h('input', { type: 'number', name: 'count', min: 1, max: 100, value: 1 });
  const err = h('div');
  const sheet = h('div', { 'aria-live': 'polite' });
  const list = h('div', {}, h('p', { class: 'empty' }, 'Loading…'));

  const form = h('form', { class: 'card no-print' },
    h('h2', {}, 'New withdraw link'),
    field('Title', title, 'Shown to whoever claims it, and on printed vouchers.'),
    field('Smallest claim (sats)', min),
    field('Largest claim (sats)', max, 'A claim asks for an amount between the two; the same amount for a fixed voucher.'),
    field('Uses', uses, 'How many times the link can be claimed.'),
    field('Seconds between two uses', wait),
    field('Vouchers', count, 'More than 1 makes that many single-use links at once: a sheet to print.'),
    err,
    h('button', { type: 'submit' }, 'Create'));

  const load = async () => {
    try {
      const links = await get('/v1/me/withdraw-links', { signal: ctx.signal });
      replace(list, links.length
        ? h('ul', { class: 'keys withdraw-links' }, links.map(linkRow))
        : h('p', { class: 'empty' }, 'No withdraw links.'));
    } catch (e) {
      if (e.name !== 'AbortError') replace(list, errorBox(e));
    }
  };

  const linkRow = (l) => {
    const panel = h('div', { class: 'plugin-panel' });
    const note = h('div', { 'aria-live': 'polite' });
    const showQR = h('button', { type: 'button', class: 'secondary' }, 'Show QR code');
    const claims = h('button', { type: 'button', class: 'secondary' }, 'Show claims');
    const revoke = h('button', { type: 'button', class: 'danger' }, 'Revoke');
    const actions = h('div', { class: 'key-actions' }, showQR, claims, revoke);
    showQR.addEventListener('click', () => {
      replace(panel,
        qrSVG(linkQR(l), `QR code of the withdraw link ${l.title}`),
        h('p', { class: 'mono wrap' }, l.lnurl),
        h('div', { class: 'actions' }, copyButton(l.lnurl, 'Copy link'), copyButton(l.lnurlw, 'Copy lnurlw:// link')),
        h('p', { class: 'hint' }, 'Whoever holds this link can claim it: share it with the person it is for.'));
    });
    claims.addEventListener('click', async () => {
      try {
        const one = await busy(actions, () => get(`/v1/me/withdraw-links/${encodeURIComponent(l.id)}`, { signal: ctx.signal }));
        const cs = one.claims || [];
        replace(panel, cs.length
          ? h('ul', { class: 'claims' }, cs.map((c) => h('li', { 'data-id': c.id },
            statusBadge(c.state === 'paid' ? 'Paid' : c.state === 'failed' ? 'Failed' : 'Pending'), ' ',
            formatMsat(c.amount_msat), ' ', formatTime(c.created_at), c.error ? h('span', { class: 'hint' }, ` ${c.error}`) : null)))
          : h('p', { class: 'empty' }, 'Not claimed yet.'));
      } catch (x) {
        if (x.name !== 'AbortError') note.append(errorBox(x));
      }
    });
    revoke.addEventListener('click', () => {
      const sure = h('button', { type: 'button', class: 'danger' }, 'Revoke this link now');
      const keep = h('button', { type: 'button', class: 'secondary' }, 'Keep');
      replace(actions, h('span', { class: 'hint' }, 'It is refused at once, a claim not paid yet too.'), sure, keep);
      keep.addEventListener('click', () => replace(actions, showQR, claims, revoke));
      sure.addEventListener('click', async () => {
        try {
          await busy(actions, () => del(`/v1/me/withdraw-links/${encodeURIComponent(l.id)}`, { signal: ctx.signal }));
          await load();
        } catch (x) {
          if (x.name !== 'AbortError') note.append(errorBox(x));
        }
      });
    });
    return h('li', { class: 'key withdraw-link', 'data-id': l.id },
      h('div', { class: 'key-main' },
        h('strong', {}, l.title),
        h('span', {}, amounts(l)),
        h('span', { class: 'uses' }, `Used ${l.used} of ${l.uses}`),
        l.wait_seconds ? h('span', { class: 'hint' }, `${l.wait_seconds} s between two uses`) : null,
        l.expires_at ? h('span', { class: 'hint' }, `Expires ${formatTime(l.expires_at)}`) : null,
        h('span', { class: 'hint' }, `Created ${formatTime(l.created_at)}`)),
      actions, note, panel);
  };

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.replaceChildren();
    const lo = satsToMsat(min.value);
    const hi = satsToMsat(max.value);
    if (lo === null || hi === null || hi < lo) {
      err.append(errorBox('Type the amounts as whole numbers of sats, the largest at least the smallest.'));
      return;
    }
    const body = { title: title.value, min_msat: lo, max_msat: hi, uses: Number(uses.value), wait_seconds: Number(wait.value) };
    if (Number(count.value) > 1) {
      body.count = Number(count.value);
      delete body.uses;
    }
    try {
      const made = await busy(form, () => post('/v1/me/withdraw-links', body, { signal: ctx.signal }));
      if (Array.isArray(made)) replace(sheet, voucherSheet(made));
      else sheet.replaceChildren();
      await load();
    } catch (x) {
      if (x.name !== 'AbortError') err.append(errorBox(x));
    }
  });

  load();
  return h('div', {},
    h('h1', { class: 'no-print' }, 'Withdraw links'),
    h('p', { class: 'hint no-print' }, 'A withdraw link lets whoever holds it pull sats from this wallet with any LNURL wallet, within its limits. Each link can never pay more than uses × its largest claim.'),
    form, sheet,
    h('section', { class: 'card no-print', 'aria-labelledby': 'withdraw-list-h' }, h('h2', { id: 'withdraw-list-h' }, 'Your links'), list));
}

// voucherSheet is a printable sheet of vouchers: one cell each, with its
// QR code, amount and title.
function voucherSheet(vs) {
  const print = h('button', { type: 'button', class: 'no-print' }, 'Print vouchers');
  print.addEventListener('click', () => window.print());
  return h('section', { class: 'card voucher-sheet', 'aria-label': 'Vouchers' },
    h('h2', { class: 'no-print' }, `${vs.length} vouchers`),
    h('p', { class: 'hint no-print' }, 'Each voucher can be claimed once, by scanning it with an LNURL wallet.'),
    print,
    h('ul', { class: 'voucher-grid' }, vs.map((v) => h('li', { class: 'voucher', 'data-id': v.id },
      qrSVG(linkQR(v), `QR code of a voucher of ${amounts(v)}`),
      h('strong', {}, amounts(v)),
      h('span', {}, v.title)))));
}

// claimSection is Receive's form that claims someone else's withdraw link
// (lnurl1…, lnurlw://…) into this wallet.
export function claimSection(ctx) {
  const link = h('input', { type: 'text', name: 'withdraw-link', autocomplete: 'off', spellcheck: 'false', required: true, placeholder: 'LNURL1… or lnurlw://…' });
  const amount = h('input', { type: 'text', name: 'claim-amount', inputmode: 'numeric', autocomplete: 'off', pattern: '[0-9, _]*' });
  const err = h('div');
  const out = h('div', { 'aria-live': 'polite' });
  const form = h('form', { class: 'card claim-link' },
    h('h2', {}, 'Claim a withdraw link'),
    field('Withdraw link', link, 'Pasted or scanned: someone gives you sats with it.'),
    field('Amount (sats, optional)', amount, 'Empty: the most the link gives.'),
    err,
    h('button', { type: 'submit' }, 'Claim'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.replaceChildren();
    const body = { input: link.value.trim().replace(/^lightning:/i, '') };
    if (amount.value.trim()) {
      const msat = satsToMsat(amount.value);
      if (msat === null) {
        err.append(errorBox('Type the amount as a whole number of sats, or leave it empty.'));
        return;
      }
      body.amount_msat = msat;
    }
    try {
      const inv = await busy(form, () => post('/v1/me/lnurl-withdraw', body, { signal: ctx.signal }));
      const state = h('p', { role: 'status' }, statusBadge('Pending'), ` ${formatMsat(inv.amount_msat)} claimed: on its way.`);
      const paid = () => replace(state, statusBadge('Paid'), ` ${formatMsat(inv.amount_msat)} received.`);
      ctx.on((msg) => {
        if (msg.type === 'invoice.settled' && msg.event && msg.event.data && msg.event.data.id === inv.id) paid();
      });
      // The link's side may have paid before this view listened: read it once.
      get(`/v1/me/invoices/${encodeURIComponent(inv.id)}`, { signal: ctx.signal })
        .then((now) => { if (now.status === 'Settled') paid(); })
        .catch(() => {});
      replace(out, state, h('a', { href: `#/activity/invoices/${encodeURIComponent(inv.id)}` }, 'Details'));
      link.value = '';
    } catch (x) {
      if (x.name !== 'AbortError') err.append(errorBox(x));
    }
  });
  return h('div', {}, form, out);
}
