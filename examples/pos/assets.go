package main

import (
	"embed"

	"github.com/hearthwallet/hearth/sdk"
)

// The page: one HTML shell for every shop (the script reads the shop from
// the address), its script and its style, served by the plugin itself.
//
//go:embed page
var pageFiles embed.FS

// page answers the shop's page.
func page() *sdk.Response {
	b, err := pageFiles.ReadFile("page/index.html")
	if err != nil {
		return fail(500, "the page is missing")
	}
	return &sdk.Response{Status: 200, Body: b, Headers: map[string]string{"Content-Type": "text/html; charset=utf-8",
		"Cache-Control": "no-cache"}}
}

// asset answers the page's script or style.
func asset(file string) *sdk.Response {
	types := map[string]string{"pos.js": "text/javascript; charset=utf-8", "pos.css": "text/css; charset=utf-8"}
	typ, ok := types[file]
	if !ok {
		return fail(404, "not found")
	}
	b, err := pageFiles.ReadFile("page/" + file)
	if err != nil {
		return fail(404, "not found")
	}
	return &sdk.Response{Status: 200, Body: b, Headers: map[string]string{"Content-Type": typ, "Cache-Control": "no-cache"}}
}
