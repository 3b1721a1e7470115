package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/hearthwallet/hearth/core/fault"
)

// The errors of the catalog.
var (
	ErrNoCatalog      = fault.New(fault.NotFound, "catalog_not_configured", "No plugin catalog is configured (plugins.catalog)")
	ErrCatalogDown    = fault.New(fault.Unavailable, "catalog_unavailable", "The plugin catalog could not be read")
	ErrNotInCatalog   = fault.New(fault.NotFound, "plugin_not_in_catalog", "The catalog lists no plugin of this name")
	ErrModuleDownload = fault.New(fault.Unavailable, "module_unavailable", "The plugin's module could not be downloaded")
)

// CatalogEntry is one plugin of a catalog's index, a JSON array of them;
// Installed and Update say how it stands against what is installed.
type CatalogEntry struct {
	Name        string          `json:"name"`
	Version     string          `json:"version"`
	Description string          `json:"description,omitempty"`
	URL         string          `json:"url"` // the module
	SHA256      string          `json:"sha256"`
	Manifest    json.RawMessage `json:"manifest"`
	// Installed is the version installed here, if any; Update says the
	// index has a newer one.
	Installed string `json:"installed,omitempty"`
	Update    bool   `json:"update,omitempty"`
}

// Catalog reads a plugin index (plugins.catalog) and downloads modules,
// through an outbound client of its own: the host's guard (no private
// address unless allowed), with a response cap of the largest module.
type Catalog struct {
	index string
	out   *Outbound
}

// NewCatalog returns the catalog of index (a URL; "" for none: then
// modules are installed from a URL alone). out should cap responses at
// plugins.max_wasm_bytes.
func NewCatalog(index string, out *Outbound) *Catalog { return &Catalog{index: index, out: out} }

var sha256RE = regexp.MustCompile(`^[0-9a-f]{64}$`)

// entries reads the index (each time: the admin asks rarely, and sees a
// new version at once). An entry whose name or version differs from its
// manifest's, or that is malformed, is left out.
func (c *Catalog) entries(ctx context.Context) ([]CatalogEntry, error) {
	if c == nil || c.index == "" {
		return nil, ErrNoCatalog
	}
	resp, err := c.out.Do(ctx, nil, OutboundRequest{Method: http.MethodGet, URL: c.index, Headers: map[string]string{"Accept": "application/json"}})
	if err != nil {
		return nil, ErrCatalogDown.Reasonf("reading %s: %v", c.index, err)
	}
	if resp.Status != http.StatusOK {
		return nil, ErrCatalogDown.Reasonf("reading %s: HTTP %d", c.index, resp.Status)
	}
	var all []CatalogEntry
	if err := json.Unmarshal(resp.Body, &all); err != nil {
		return nil, ErrCatalogDown.Reasonf("reading %s: not a JSON array of plugins: %v", c.index, err)
	}
	list := all[:0]
	for _, e := range all {
		if e.check() == nil {
			e.Installed, e.Update = "", false
			list = append(list, e)
		}
	}
	return list, nil
}

// check validates an entry against its manifest.
func (e *CatalogEntry) check() error {
	m, err := ParseManifest(e.Manifest)
	switch {
	case err != nil:
		return err
	case m.Name != e.Name || m.Version != e.Version:
		return fmt.Errorf("entry %s %s: its manifest says %s %s", e.Name, e.Version, m.Name, m.Version)
	case !sha256RE.MatchString(strings.ToLower(e.SHA256)):
		return fmt.Errorf("entry %s: sha256 is not 64 hex digits", e.Name)
	case !strings.HasPrefix(e.URL, "https://") && !strings.HasPrefix(e.URL, "http://"):
		return fmt.Errorf("entry %s: url must be http(s)", e.Name)
	}
	return nil
}

// download fetches a module.
func (c *Catalog) download(ctx context.Context, url string) ([]byte, error) {
	resp, err := c.out.Do(ctx, nil, OutboundRequest{Method: http.MethodGet, URL: url})
	if err != nil {
		return nil, ErrModuleDownload.Reasonf("downloading %s: %v", url, err)
	}
	if resp.Status != http.StatusOK {
		return nil, ErrModuleDownload.Reasonf("downloading %s: HTTP %d", url, resp.Status)
	}
	return resp.Body, nil
}

// SetCatalog gives the registry its catalog.
func (r *Registry) SetCatalog(c *Catalog) { r.catalog = c }

// Catalog lists the catalog's plugins, each with the version installed
// here and whether the index has a newer one.
func (r *Registry) Catalog(ctx context.Context) ([]CatalogEntry, error) {
	list, err := r.catalog.entries(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]CatalogEntry, len(list))
	for i, e := range list {
		if p, err := r.Get(e.Name); err == nil && !p.Builtin {
			e.Installed, e.Update = p.Manifest.Version, Newer(e.Version, p.Manifest.Version)
		}
		out[i] = e
	}
	return out, nil
}

// InstallSource names a module to install: a catalog entry by Name, or
// a module's URL with its sha256 and manifest.
type InstallSource struct {
	Name     string          `json:"name,omitempty"`
	URL      string          `json:"url,omitempty"`
	SHA256   string          `json:"sha256,omitempty"`
	Manifest json.RawMessage `json:"manifest,omitempty"`
}

// InstallFrom downloads src's module and installs it, or updates the
// installed plugin of its name to it (updated true; Update: a newer
// version only). A module whose hash is not src's is refused, and nothing
// is installed.
func (r *Registry) InstallFrom(ctx context.Context, src InstallSource) (info *Info, updated bool, err error) {
	if src.Name != "" {
		if src.URL != "" || src.SHA256 != "" || len(src.Manifest) > 0 {
			return nil, false, ErrInvalid.Reasonf("give a catalog entry's name, or url, sha256 and manifest: not both")
		}
		list, err := r.catalog.entries(ctx)
		if err != nil {
			return nil, false, err
		}
		found := false
		for _, e := range list {
			if e.Name == src.Name {
				src, found = InstallSource{URL: e.URL, SHA256: e.SHA256, Manifest: e.Manifest}, true
				break
			}
		}
		if !found {
			return nil, false, ErrNotInCatalog.Reasonf("the catalog lists no plugin %q", src.Name)
		}
	}
	if src.URL == "" || src.SHA256 == "" || len(bytes.TrimSpace(src.Manifest)) == 0 {
		return nil, false, ErrInvalid.Reasonf("give a catalog entry's name, or url, sha256 and manifest")
	}
	m, err := ParseManifest(src.Manifest)
	if err != nil {
		return nil, false, ErrInvalid.Reasonf("%s", err.Error())
	}
	if r.catalog == nil {
		return nil, false, ErrInvalid.Reasonf("this server downloads no plugins")
	}
	wasm, err := r.catalog.download(ctx, src.URL)
	if err != nil {
		return nil, false, err
	}
	if _, err := r.Get(m.Name); err == nil {
		info, err := r.Update(ctx, src.Manifest, wasm, src.SHA256)
		return info, err == nil, err
	}
	info, err = r.Install(ctx, src.Manifest, wasm, src.SHA256)
	return info, false, err
}
