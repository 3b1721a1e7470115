// The payments a credential made: an API key's, or a Wallet Connect
// app's (its connection is a key of the wallet), newest first, read with
// GET /v1/me/payments?api_key_id=… (or the admin's /v1/payments) when the
// person asks.
import { get, query } from '../api.js';
import { h, replace, errorBox, formatMsat, formatTime, statusBadge } from '../dom.js';

const SHOWN = 10;

// paymentsButton is a "Payments" button for the credential id (named
// name) that shows its last payments in place, in box, and hides them
// again; any reads them across wallets (the admin's GET /v1/payments).
export function paymentsButton(ctx, id, name, box, any = false) {
  const button = h('button', { type: 'button', class: 'secondary', 'aria-expanded': 'false' }, 'Payments');
  button.addEventListener('click', async () => {
    if (button.getAttribute('aria-expanded') === 'true') {
      button.setAttribute('aria-expanded', 'false');
      box.replaceChildren();
      return;
    }
    button.setAttribute('aria-expanded', 'true');
    replace(box, h('p', { class: 'empty' }, 'Loading…'));
    try {
      const rows = await get(`${any ? '/v1/payments' : '/v1/me/payments'}${query({ api_key_id: id, limit: SHOWN })}`, { signal: ctx.signal });
      replace(box, h('section', { class: 'made-by', 'aria-label': `Payments of ${name}` },
        rows.length
          ? h('ul', { class: 'records' }, rows.map((p) => h('li', {},
            h('a', { href: `/#/activity/payments/${encodeURIComponent(p.id)}` }, formatMsat(p.amount_msat)), ' ',
            statusBadge(p.status), ' ', h('span', { class: 'hint' }, formatTime(p.created_at)))))
          : h('p', { class: 'empty' }, `No payments made by ${name} yet.`),
        rows.length === SHOWN ? h('p', { class: 'hint' }, `The last ${SHOWN}; Activity has them all.`) : null));
    } catch (e) {
      if (e.name !== 'AbortError') replace(box, errorBox(e));
    }
  });
  return button;
}
