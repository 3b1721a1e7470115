// Plugins (shown to the admin only; the server enforces it anyway):
// install a WebAssembly plugin from its module and manifest; then each
// plugin with its state, and enable (the scopes to grant and a wallet),
// configure (from its schema), disable, remove and its logs. A built-in is
// part of the server: it shows its logs only.
import { get, post, del } from '../api.js';
import { h, replace, field, errorBox, busy, formatTime } from '../dom.js';
import { grantForm, configForm, missingConfig, walletName } from './pluginforms.js';
import { catalogSection } from './plugincatalog.js';

const path = (p, rest = '') => `/v1/plugins/${encodeURIComponent(p.name)}${rest}`;

export function plugins(ctx) {
  const list = h('div', {}, h('p', { class: 'empty' }, 'Loading…'));
  const notice = h('div', { 'aria-live': 'polite' });
  let wallets = null; // every wallet, for the picker and the names; null when unreadable

  const say = (text) => replace(notice, h('p', { class: 'notice', role: 'status' }, text));
  const load = async () => {
    try {
      const [ps, ws] = await Promise.all([
        get('/v1/plugins', { signal: ctx.signal }),
        get('/v1/wallets?limit=1000', { signal: ctx.signal }).catch((e) => { if (e.name === 'AbortError') throw e; return null; }),
      ]);
      wallets = ws;
      // The WebAssembly plugins first: the built-ins come with the server.
      const sorted = [...ps].sort((a, b) => (a.kind === 'builtin') - (b.kind === 'builtin') || a.name.localeCompare(b.name));
      replace(list, sorted.length ? h('ul', { class: 'plugins' }, sorted.map(row)) : h('p', { class: 'empty' }, 'No plugins.'));
    } catch (e) {
      if (e.name !== 'AbortError') replace(list, errorBox(e));
    }
  };
  const after = (text) => async () => { await load(); say(text); };

  const row = (p) => {
    const panel = h('div', { class: 'plugin-panel' });
    const buttons = h('div', { class: 'actions' });
    const close = () => panel.replaceChildren();
    const open = (node) => {
      replace(panel, node);
      const first = panel.querySelector('input:not([disabled]), select, button');
      if (first) first.focus();
    };
    const act = async (fn) => {
      try {
        await busy(buttons, fn);
      } catch (x) {
        if (x.name !== 'AbortError') replace(panel, errorBox(x));
      }
    };
    const button = (text, onclick, cls) => h('button', { type: 'button', class: cls, onclick }, text);
    const builtin = p.kind === 'builtin';
    const running = p.state === 'enabled';
    const forms = { app: ctx.app, signal: ctx.signal, onCancel: close };
    if (!builtin) {
      buttons.append(running
        ? button(`Disable ${p.name}`, () => act(async () => { await post(path(p, '/disable'), undefined, { signal: ctx.signal }); await after(`${p.name} disabled.`)(); }), 'secondary')
        : button(`Enable ${p.name}`, () => open(grantForm(p, { ...forms, wallets, onDone: after(`${p.name} enabled.`) }))));
      if (Object.keys(p.config_schema || {}).length) {
        buttons.append(button(`Configure ${p.name}`, () => open(configForm(p, { ...forms, onDone: after(`Configuration of ${p.name} saved.`) })), 'secondary'));
      }
    }
    buttons.append(button(`Logs of ${p.name}`, () => open(logs(p)), 'secondary'));
    if (!builtin) buttons.append(button(`Remove ${p.name}`, () => open(removal(p)), 'danger'));

    const wallet = p.wallet_id && wallets && wallets.find((w) => w.id === p.wallet_id);
    const missing = missingConfig(p);
    const caps = p.capabilities || [];
    const facts = [
      // What it reaches beyond a wallet: for a built-in too, which is granted what it declares.
      ['Capabilities', caps.length ? h('span', { class: 'scopes-list capabilities' }, caps.join(', ')) : 'None'],
      ['Granted', (p.granted || []).length ? h('span', { class: 'scopes-list' }, p.granted.join(', ')) : 'Nothing'],
    ];
    if (p.health) facts.push(['Health', p.health === 'ok' ? 'Operational' : h('span', { class: 'error' }, p.health)]);
    if (!builtin) {
      facts.push(['Wallet', p.wallet_id ? (wallet ? walletName(wallet) : h('code', {}, p.wallet_id)) : 'None']);
      facts.push(['Events', `${p.events_delivered} delivered, ${p.events_dropped} missed while it was not running`]);
    }
    if ((p.routes || []).length) {
      const who = (r) => (r.public ? 'public' : r.admin ? `admin, ${r.scope}` : (r.scope || 'signed in'));
      facts.push(['Routes', h('details', { class: 'plugin-routes' }, h('summary', {}, `${p.routes.length} route${p.routes.length === 1 ? '' : 's'}`),
        h('ul', { class: 'mono' }, p.routes.map((r) => h('li', {}, `${r.method} ${r.path} (${who(r)})`))))]);
    }
    if ((p.timers || []).length) facts.push(['Timers', p.timers.map((t) => `${t.name}: ${t.every ? `every ${t.every}` : t.cron}`).join('; ')]);
    if (missing.length) facts.push(['Configuration', `Needs ${missing.join(', ')} before it can be enabled`]);
    if (p.sha256) facts.push(['SHA-256', h('code', { class: 'wrap' }, p.sha256)]);
    return h('li', { class: 'plugin', 'data-name': p.name, 'data-state': p.state },
      h('div', { class: 'plugin-head' },
        h('strong', { class: 'plugin-name' }, p.name),
        h('span', { class: 'hint' }, `${p.version} · ${builtin ? 'built-in' : 'WebAssembly'}`),
        h('span', { class: ['badge', `badge-${p.state}`] }, p.state)),
      p.description ? h('p', { class: 'plugin-desc' }, p.description) : null,
      h('dl', { class: 'facts plugin-facts' }, facts.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
      p.error ? h('p', { class: 'error' }, p.error) : null,
      buttons, panel);

    function logs(pl) {
      const body = h('div', {}, h('p', { class: 'empty' }, 'Loading…'));
      const read = async () => {
        try {
          const entries = await get(path(pl, '/logs?limit=200'), { signal: ctx.signal });
          replace(body, entries.length
            ? h('ol', { class: 'logs mono' }, entries.map((l) => h('li', { class: `log log-${l.level}` },
              h('span', { class: 'log-time' }, formatTime(l.at)), ' ', h('span', { class: 'log-level' }, l.level), ' ', h('span', { class: 'log-msg' }, l.msg))))
            : h('p', { class: 'hint' }, 'No log lines.'));
        } catch (x) {
          if (x.name !== 'AbortError') replace(body, errorBox(x));
        }
      };
      read();
      return h('section', { class: 'plugin-form', 'aria-label': `Logs of ${pl.name}` },
        h('h3', {}, `Logs of ${pl.name}`), body,
        h('div', { class: 'actions' }, button('Refresh logs', read, 'secondary'), button('Close', close, 'secondary')));
    }

    function removal(pl) {
      const err = h('div');
      const box = h('div', { class: 'plugin-form' },
        h('h3', {}, `Remove ${pl.name}?`),
        h('p', {}, 'It stops at once, and its code, configuration, grant and stored data are deleted. Its invoices and payments stay in their wallet.'),
        err,
        h('div', { class: 'actions' },
          button(`Remove ${pl.name} now`, async () => {
            err.replaceChildren();
            try {
              await busy(box, () => del(path(pl), { signal: ctx.signal }));
              await after(`${pl.name} removed.`)();
            } catch (x) {
              if (x.name !== 'AbortError') err.append(errorBox(x));
            }
          }, 'danger'),
          button('Keep it', close, 'secondary')));
      return box;
    }
  };

  const catalog = catalogSection(ctx, async (info, updated) => {
    await load();
    say(updated ? `${info.name} updated to ${info.version}.${info.state === 'enabled' ? '' : ' Enable it again to grant what it asks for.'}`
      : `${info.name} ${info.version} installed. Configure it if it asks, then enable it.`);
  });
  load();
  return h('div', {},
    h('h1', {}, 'Plugins'),
    h('p', {}, 'A plugin adds to the server: it acts on one wallet with the scopes you grant it, and nothing more.'),
    notice,
    h('div', { class: 'plugins-layout' },
      h('section', { class: 'card', 'aria-labelledby': 'plugins-h' },
        h('div', { class: 'section-head' }, h('h2', { id: 'plugins-h' }, 'Installed plugins'),
          h('button', { type: 'button', class: 'link', onclick: () => { notice.replaceChildren(); load(); } }, 'Refresh plugins')),
        list),
      h('div', {},
        catalog.node,
        installForm(ctx, async (info) => { await load(); catalog.reload(); say(`${info.name} ${info.version} installed. Configure it if it asks, then enable it.`); }))));
}

// installForm uploads a WebAssembly plugin: its module, its manifest, and
// the module's SHA-256 (typed, as its author publishes it, else computed
// here from the file).
function installForm(ctx, onDone) {
  const wasm = h('input', { type: 'file', name: 'wasm', accept: '.wasm,application/wasm', required: true });
  const manifest = h('input', { type: 'file', name: 'manifest', accept: '.json,application/json', required: true });
  const pin = h('input', { type: 'text', name: 'sha256', autocomplete: 'off', spellcheck: 'false', class: 'mono' });
  const preview = h('div', { 'aria-live': 'polite' });
  const err = h('div');
  let parsed = null;
  manifest.addEventListener('change', async () => {
    parsed = null;
    preview.replaceChildren();
    const f = manifest.files[0];
    if (!f) return;
    try {
      parsed = JSON.parse(await f.text());
    } catch (x) {
      replace(preview, errorBox(`The manifest is not JSON: ${x.message}`));
      return;
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      parsed = null;
      replace(preview, errorBox('The manifest is not a JSON object.'));
      return;
    }
    replace(preview, h('dl', { class: 'facts manifest-preview' },
      [['Name', parsed.name], ['Version', parsed.version], ['Asks for', (parsed.scopes || []).join(', ') || 'no scope'],
        ['Events', (parsed.events || []).join(', ') || 'none'], ['About', parsed.description || '—']]
        .map(([k, v]) => [h('dt', {}, k), h('dd', {}, String(v ?? '—'))])));
  });
  const form = h('form', { class: 'card', novalidate: true, 'aria-labelledby': 'install-h' },
    h('h2', { id: 'install-h' }, 'Install a plugin'),
    h('p', { class: 'hint install-intro' }, 'A WebAssembly plugin comes as a module and its manifest, which names it and says the scopes it asks for, its routes, its events and its configuration.'),
    field('Module (.wasm)', wasm),
    field('Manifest (manifest.json)', manifest),
    preview,
    field('SHA-256 of the module', pin, 'Optional: the hash its author publishes; the server refuses a module that does not match. Left empty, the hash of the file picked is sent.'),
    err,
    h('button', { type: 'submit' }, 'Install plugin'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.replaceChildren();
    const file = wasm.files[0];
    if (!file) { err.append(errorBox('Pick the module, a .wasm file.')); return; }
    if (!manifest.files[0] || !parsed) { err.append(errorBox('Pick the manifest, a JSON file.')); return; }
    try {
      const info = await busy(form, async () => {
        const bytes = await file.arrayBuffer();
        let sum = pin.value.trim().toLowerCase().replace(/^sha256:/, '');
        if (!sum) {
          if (!crypto.subtle) throw new Error('This browser computes no SHA-256 on a page not served over HTTPS: type the module’s SHA-256.');
          sum = [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');
        }
        return post('/v1/plugins', { manifest: parsed, wasm: await base64(file), sha256: sum }, { signal: ctx.signal });
      });
      form.reset();
      parsed = null;
      preview.replaceChildren();
      await onDone(info);
    } catch (x) {
      if (x.name !== 'AbortError') err.append(errorBox(x));
    }
  });
  return form;
}

// base64 reads a file as base64 (the browser encodes it, however large).
function base64(file) {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result).slice(String(r.result).indexOf(',') + 1));
    r.onerror = () => reject(r.error || new Error('The file could not be read.'));
    r.readAsDataURL(file);
  });
}
