package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/hearthwallet/hearth/host"
)

// pluginList is `hearth plugin list`: the plugins as a table of what an
// admin looks at first (name, kind, state, version, capabilities) and the
// error of each that has one; asJSON prints the server's records instead,
// every field of each, as GET /v1/plugins answers them.
func (c *adminClient) pluginList(ctx context.Context, asJSON bool) error {
	if asJSON {
		return c.do(ctx, "GET", "/v1/plugins", nil)
	}
	body, err := c.call(ctx, "GET", "/v1/plugins", nil)
	if err != nil {
		c.print(body)
		return err
	}
	var plugins []host.Info
	if err := json.Unmarshal(body, &plugins); err != nil {
		return fmt.Errorf("reading the server's list of plugins: %w", err)
	}
	return writePluginTable(c.out, plugins)
}

// writePluginTable writes plugins as a table with a header, one row each,
// then a line for each plugin's error.
func writePluginTable(out io.Writer, plugins []host.Info) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tSTATE\tVERSION\tCAPABILITIES")
	for _, p := range plugins {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.Name, p.Kind, p.State, orDash(p.Version), orDash(strings.Join(p.Capabilities, ", ")))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("writing the table: %w", err)
	}
	for _, p := range plugins {
		if p.Error != "" {
			fmt.Fprintf(out, "%s: %s\n", p.Name, p.Error)
		}
	}
	return nil
}

// orDash is s, or "-" for an empty cell.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// pluginCatalog is `hearth plugin catalog`: the catalog's plugins as a
// table (name, version, installed, description), a newer version marked;
// asJSON prints the server's records.
func (c *adminClient) pluginCatalog(ctx context.Context, asJSON bool) error {
	if asJSON {
		return c.do(ctx, "GET", "/v1/plugins/catalog", nil)
	}
	body, err := c.call(ctx, "GET", "/v1/plugins/catalog", nil)
	if err != nil {
		c.print(body)
		return err
	}
	var list []host.CatalogEntry
	if err := json.Unmarshal(body, &list); err != nil {
		return fmt.Errorf("reading the server's catalog: %w", err)
	}
	tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVERSION\tINSTALLED\tDESCRIPTION")
	for _, e := range list {
		installed := orDash(e.Installed)
		if e.Update {
			installed += " (update: hearth plugin install " + e.Name + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Name, e.Version, installed, orDash(e.Description))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("writing the table: %w", err)
	}
	return nil
}
