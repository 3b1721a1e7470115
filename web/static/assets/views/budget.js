// Budgets: what an API key or a Wallet Connect app may pay per period,
// fees included (core/budget). Typed in sats, sent in msat as {max_msat,
// renewal}; shown as what the current period has used of it and when it
// starts again.
import { h, field, formatMsat, formatTime, satsToMsat } from '../dom.js';

// RENEWALS are the renewals a person may pick, with their words.
export const RENEWALS = [
  ['daily', 'Every day'],
  ['weekly', 'Every week (Monday)'],
  ['monthly', 'Every month'],
  ['yearly', 'Every year'],
  ['never', 'Never: one budget for its whole life'],
];

// The current period, in words, by renewal.
const PERIOD = { daily: 'today', weekly: 'this week', monthly: 'this month', yearly: 'this year', never: 'in all' };

// budgetFields are the budget's amount (sats, optional) and renewal, their
// ids prefixed by prefix; what says who spends ("the app may spend"). read() returns {budget} (null when no amount is
// typed) or {error}; reset() empties the amount and picks the default
// renewal again; set(budget) shows one.
export function budgetFields(prefix, what) {
  const def = 'monthly';
  const sats = h('input', { type: 'text', name: 'budget_sats', id: `${prefix}-budget`, inputmode: 'numeric', autocomplete: 'off' });
  const renewal = h('select', { name: 'budget_renewal', id: `${prefix}-renewal` },
    RENEWALS.map(([v, l]) => h('option', { value: v }, l)));
  renewal.value = def;
  const node = h('fieldset', { class: 'budget' },
    h('legend', {}, 'Budget'),
    field('Budget (sats)', sats, `Optional: the most ${what} per period, fees included. Empty for no budget.`),
    field('Budget renews', renewal, 'A new period starts at midnight UTC.'));
  return {
    node,
    read() {
      const text = sats.value.trim();
      if (!text) return { budget: null };
      const msat = satsToMsat(text);
      if (msat == null) return { error: `Not a budget: ${text}. Type a whole number of sats, or leave it empty.` };
      return { budget: { max_msat: msat, renewal: renewal.value } };
    },
    reset() {
      sats.value = '';
      renewal.value = def;
    },
    // set shows budget ({max_msat, renewal}, or null for none).
    set(b) {
      sats.value = b ? String(Math.floor(Number(b.max_msat) / 1000)) : '';
      renewal.value = (b && b.renewal) || def;
    },
  };
}

// budgetUse shows a budget's use ({max_msat, renewal, used_msat,
// renews_at?}): "1,000 sats of 5,000 sats used this month · renews …", with
// a bar; null for none.
export function budgetUse(b) {
  if (!b) return null;
  const max = Number(b.max_msat);
  const used = Number(b.used_msat || 0);
  const when = b.renews_at ? `renews ${formatTime(b.renews_at)}` : 'never renews';
  const text = `Budget: ${formatMsat(used)} of ${formatMsat(max)} used ${PERIOD[b.renewal] || 'in this period'} · ${when}`;
  return h('span', { class: 'budget-use' },
    h('span', { class: 'budget-text' }, text),
    h('progress', { class: 'budget-bar', max: String(max), value: String(Math.min(used, max)), 'aria-label': `Budget used: ${formatMsat(used)} of ${formatMsat(max)}` }));
}
