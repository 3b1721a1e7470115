// The plugin catalog (the server's plugins.catalog, an index of published
// plugins): each entry with what it asks for, installed with one click by
// name (the server downloads the module and checks its SHA-256), or
// updated when the index lists a newer version than the one installed.
import { get, post } from '../api.js';
import { h, replace, errorBox, busy } from '../dom.js';

export function catalogSection(ctx, onDone) {
  const body = h('div', {});
  let opened = false;

  // Read when the admin asks: a server without a catalog answers 404.
  const load = async () => {
    if (!opened) return;
    try {
      const list = await get('/v1/plugins/catalog', { signal: ctx.signal });
      replace(body, list.length ? h('ul', { class: 'catalog' }, list.map(entry)) : h('p', { class: 'empty' }, 'The catalog lists no plugins.'),
        h('button', { type: 'button', class: 'link', onclick: load }, 'Refresh the catalog'));
    } catch (x) {
      if (x.name === 'AbortError') return;
      replace(body, x.code === 'catalog_not_configured'
        ? h('p', { class: 'hint' }, 'No catalog is configured. Set plugins.catalog (HEARTH_PLUGINS_CATALOG) to the URL of a plugin index, and install its plugins from here.')
        : errorBox(x));
    }
  };

  const entry = (e) => {
    const m = e.manifest || {};
    const err = h('div');
    const asks = (m.scopes || []).join(', ') || 'no scope';
    let label = `Install ${e.name}`;
    if (e.installed) label = e.update ? `Update ${e.name} to ${e.version}` : null;
    const act = label && h('button', { type: 'button', class: e.update ? 'secondary' : '', onclick: async () => {
      err.replaceChildren();
      try {
        const info = await busy(li, () => post('/v1/plugins/install', { name: e.name }, { signal: ctx.signal }));
        await load();
        await onDone(info, Boolean(e.installed));
      } catch (x) {
        if (x.name !== 'AbortError') err.append(errorBox(x));
      }
    } }, label);
    const li = h('li', { class: 'catalog-entry', 'data-name': e.name },
      h('div', { class: 'plugin-head' },
        h('strong', { class: 'plugin-name' }, e.name),
        h('span', { class: 'hint' }, e.installed ? `${e.version} · ${e.installed} installed` : e.version)),
      e.description ? h('p', { class: 'plugin-desc' }, e.description) : null,
      h('p', { class: 'hint' }, `Asks for ${asks}`),
      err,
      h('div', { class: 'actions' }, act || h('span', { class: 'hint' }, 'Installed, up to date')));
    return li;
  };

  replace(body, h('p', { class: 'hint' }, 'Plugins published in the catalog your server names, installed by name: the server downloads each and checks its SHA-256.'),
    h('button', { type: 'button', class: 'secondary', onclick: () => { opened = true; replace(body, h('p', { class: 'empty' }, 'Loading…')); load(); } }, 'Browse the catalog'));
  return {
    reload: load,
    node: h('section', { class: 'card', 'aria-labelledby': 'catalog-h' },
      h('h2', { id: 'catalog-h' }, 'Plugin catalog'),
      body),
  };
}
