package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/hearthwallet/hearth/core/config"
)

const pluginUsage = `Usage: hearth plugin [--url URL] [--token TOKEN] <command>

Manages the plugins of a running server through its admin API. The token
is an admin sign-in token or admin API key (default $HEARTH_TOKEN); the URL
defaults to public_url.

Commands:
  list [--json]                          the plugins as a table (name, kind, state, version,
                                         capabilities); --json: every field, as the API answers
  install <module.wasm> <manifest.json>  install, pinned by the module's sha256 (--sha256 to assert it)
  catalog [--json]                       the catalog's plugins (plugins.catalog), with the version
                                         installed and whether a newer one is listed
  install <name>                         install from the catalog, or update to its newer version
                                         (kept enabled only if it asks for no more scopes)
  config <name> '<json object>'          set the plugin's configuration: a key left out is
                                         unset, but a secret left out keeps its value;
                                         null unsets any key
  enable <name> --scopes a,b [--wallet ID]   enable, granting scopes and a wallet
  disable <name>                         disable
  remove <name>                          remove, with its keys
  logs <name>                            recent log lines
  help                                   this help (so does --help, after any command)
`

// pluginCommand runs `hearth plugin …` against the server's admin API.
func pluginCommand(ctx context.Context, cfg config.Config, args []string, stdout io.Writer, environ []string) error {
	fs := flag.NewFlagSet("plugin", flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.Usage = func() { fmt.Fprint(stdout, pluginUsage) }
	base := fs.String("url", cfg.PublicURL, "server URL")
	token := fs.String("token", envValue(environ, "HEARTH_TOKEN"), "admin token or API key")
	pin := fs.String("sha256", "", "expected sha256 of the module (install)")
	scopes := fs.String("scopes", "", "comma-separated scopes to grant (enable)")
	walletID := fs.String("wallet", "", "wallet the plugin acts on (enable)")
	asJSON := fs.Bool("json", false, "print the server's JSON records (list)")
	// Flags may follow the positional arguments: parse them out first.
	var pos []string
	for rest := args; len(rest) > 0; {
		if err := fs.Parse(rest); err != nil {
			return err
		}
		rest = fs.Args()
		if len(rest) > 0 {
			pos = append(pos, rest[0])
			rest = rest[1:]
		}
	}
	if len(pos) == 0 {
		fmt.Fprint(stdout, pluginUsage)
		return errors.New("no plugin command given")
	}
	c := &adminClient{base: strings.TrimRight(*base, "/"), token: *token, out: stdout}
	need := func(n int) error {
		if len(pos) != n {
			fmt.Fprint(stdout, pluginUsage)
			return fmt.Errorf("plugin %s: wrong number of arguments", pos[0])
		}
		return nil
	}
	switch pos[0] {
	case "help":
		fmt.Fprint(stdout, pluginUsage)
		return nil
	case "list":
		return c.pluginList(ctx, *asJSON)
	case "catalog":
		return c.pluginCatalog(ctx, *asJSON)
	case "install":
		if len(pos) == 2 {
			return c.do(ctx, "POST", "/v1/plugins/install", map[string]string{"name": pos[1]})
		}
		if err := need(3); err != nil {
			return err
		}
		module, err := os.ReadFile(pos[1])
		if err != nil {
			return err
		}
		manifest, err := os.ReadFile(pos[2])
		if err != nil {
			return err
		}
		sum := sha256.Sum256(module)
		got := hex.EncodeToString(sum[:])
		if *pin != "" && !strings.EqualFold(*pin, got) {
			return fmt.Errorf("%s has sha256 %s, not %s", pos[1], got, *pin)
		}
		return c.do(ctx, "POST", "/v1/plugins", map[string]any{
			"manifest": json.RawMessage(manifest), "wasm": base64.StdEncoding.EncodeToString(module), "sha256": got})
	case "config":
		if err := need(3); err != nil {
			return err
		}
		return c.do(ctx, "PUT", "/v1/plugins/"+pos[1]+"/config", json.RawMessage(pos[2]))
	case "enable":
		if err := need(2); err != nil {
			return err
		}
		body := map[string]any{"scopes": splitList(*scopes)}
		if *walletID != "" {
			body["wallet_id"] = *walletID
		}
		return c.do(ctx, "POST", "/v1/plugins/"+pos[1]+"/enable", body)
	case "disable":
		if err := need(2); err != nil {
			return err
		}
		return c.do(ctx, "POST", "/v1/plugins/"+pos[1]+"/disable", nil)
	case "remove":
		if err := need(2); err != nil {
			return err
		}
		return c.do(ctx, "DELETE", "/v1/plugins/"+pos[1], nil)
	case "logs":
		if err := need(2); err != nil {
			return err
		}
		return c.do(ctx, "GET", "/v1/plugins/"+pos[1]+"/logs", nil)
	}
	fmt.Fprint(stdout, pluginUsage)
	return fmt.Errorf("unknown plugin command %q", pos[0])
}

func splitList(s string) []string {
	out := []string{}
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func envValue(environ []string, key string) string {
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// adminClient calls the admin API and prints the answer.
type adminClient struct {
	base, token string
	out         io.Writer
}

// do calls the admin API and prints the answer, indented when it is JSON.
func (c *adminClient) do(ctx context.Context, method, path string, body any) error {
	b, err := c.call(ctx, method, path, body)
	c.print(b)
	return err
}

// call calls the admin API and returns the answer's body, with an error
// when its status is not a success.
func (c *adminClient) call(ctx context.Context, method, path string, body any) ([]byte, error) {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		r = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, r)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if strings.HasPrefix(c.token, "hk_") {
		req.Header.Set("Api-Key", c.token)
	} else if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		return b, fmt.Errorf("%s %s: %s", method, path, resp.Status)
	}
	return b, nil
}

// print writes an answer's body, indented when it is JSON.
func (c *adminClient) print(b []byte) {
	if len(b) == 0 {
		return
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, b, "", "  ") == nil {
		b = append(pretty.Bytes(), '\n')
	}
	c.out.Write(b)
}
