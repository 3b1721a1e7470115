package main

import (
	"fmt"
	"regexp"
	"strings"
)

// What a reader pastes into the docs' commands: the values the examples
// show as placeholders (lnbcrt1u1…, hk_…, <invoice_id>), taken from what
// the commands before printed, and the addresses of the reader's own
// machine (the test server's port for localhost:3000, a local endpoint for
// the webhook's https://example.com/hearth).

// pasteValues are the values the commands have printed so far: the last
// string of each JSON field name.
type pasteValues map[string]string

var jsonStringFieldRE = regexp.MustCompile(`"([a-z_0-9]+)":"([^"\\]*)"`)

// learn remembers the string fields of an answer.
func (v pasteValues) learn(output string) {
	for _, m := range jsonStringFieldRE.FindAllStringSubmatch(output, -1) {
		v[m[1]] = m[2]
	}
}

// readerMachine is where the reader's commands go in the test.
type readerMachine struct {
	hostPort string // for localhost:3000
	base     string // for the domain a guide names, https://example.com
	webhook  string // the reader's webhook endpoint
	npub     string // the reader's Nostr key
}

var (
	bolt11PlaceholderRE = regexp.MustCompile(`lnbcrt[0-9a-z]*…`)
	apiKeyPlaceholderRE = regexp.MustCompile(`hk_…`)
	npubPlaceholderRE   = regexp.MustCompile(`npub1…[^"]*…`)
	namedPlaceholderRE  = regexp.MustCompile(`<([a-z_]+)>`)
	leftPlaceholderRE   = regexp.MustCompile(`…|<[a-z][a-z_ -]*>`)
)

// fillIn returns the command as the reader would run it: without its
// comments, every placeholder replaced. It fails when a placeholder is
// left that nothing printed before fills.
func (m readerMachine) fillIn(command string, v pasteValues) (string, error) {
	cmd := withoutComments(command)
	cmd = strings.ReplaceAll(cmd, "localhost:3000", m.hostPort)
	cmd = strings.ReplaceAll(cmd, "https://example.com/v1/", m.base+"/v1/")
	cmd = strings.ReplaceAll(cmd, "https://example.com/hearth", m.webhook)
	cmd = npubPlaceholderRE.ReplaceAllLiteralString(cmd, m.npub)
	var missing []string
	from := func(field string) func(string) string {
		return func(placeholder string) string {
			if s, ok := v[field]; ok {
				return s
			}
			missing = append(missing, fmt.Sprintf("%s (no %q printed before)", placeholder, field))
			return placeholder
		}
	}
	cmd = bolt11PlaceholderRE.ReplaceAllStringFunc(cmd, from("bolt11"))
	cmd = apiKeyPlaceholderRE.ReplaceAllStringFunc(cmd, from("key"))
	cmd = namedPlaceholderRE.ReplaceAllStringFunc(cmd, func(placeholder string) string {
		return from(strings.Trim(placeholder, "<>"))(placeholder)
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("nothing to paste for %s", strings.Join(missing, ", "))
	}
	if left := leftPlaceholderRE.FindString(cmd); left != "" {
		return "", fmt.Errorf("a placeholder %q that the docs test does not know how to fill: show how the reader gets the value, or teach fillIn", left)
	}
	return cmd, nil
}

var (
	writeFlagRE   = regexp.MustCompile(`\s(-X|--request|-d|--data[a-z-]*|-F|--form)(\s|[A-Z])`)
	httpFailureRE = regexp.MustCompile(`docs-test: HTTP (\d+|none)`)
)

// isRead tells a command that only reads over HTTP (curl GETs), which may
// be pasted again while what it reads is being brought about: the paywall's
// content, for one, unlocks when the plugin has heard of the payment.
func isRead(cmd string) bool {
	return curlLineRE.MatchString(cmd) && !writeFlagRE.MatchString(cmd)
}
