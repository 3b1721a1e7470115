package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// The shell examples of the README and the guides in docs/, as the docs
// test (docs_test.go) reads them: every ```sh or ```bash block runs, unless
// the line before it says why it cannot run here:
//
//	<!-- docs-test: skip (needs a real LND) -->
//
// A curl command in a block of another kind is an error: it would be run by
// readers and never by the test.

// docBlock is one fenced shell block of a document.
type docBlock struct {
	file string // the document, as named to the reader (README.md, docs/receiving.md)
	line int    // the line of its opening fence
	lang string
	text string
	skip string // why it cannot run here; empty when it runs
}

// docCommand is one command of a block: its lines joined where they end
// with a backslash, as the shell joins them.
type docCommand struct {
	line int
	text string
}

var (
	skipMarkerRE = regexp.MustCompile(`^<!-- docs-test: skip \((.+)\) -->$`)
	anyMarkerRE  = regexp.MustCompile(`^<!--.*docs-test`)
	curlLineRE   = regexp.MustCompile(`(^|[\s$(;|&])curl\s`)
)

// shellLangs are the fences whose blocks run.
var shellLangs = map[string]bool{"sh": true, "bash": true}

// readDocBlocks returns the shell blocks of the document at path, named
// name. It fails on a marker that is malformed or not just before a shell
// block, and on a curl command in a block that is not a shell block.
func readDocBlocks(path, name string) ([]docBlock, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the docs: %w", err)
	}
	defer f.Close()
	var (
		blocks  []docBlock
		cur     *docBlock
		body    strings.Builder
		skip    string
		skipAt  int
		prevSet bool // the previous line was a skip marker
	)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if cur != nil {
			if trimmed == "```" {
				cur.text = body.String()
				if shellLangs[cur.lang] {
					blocks = append(blocks, *cur)
				} else if curlLineRE.MatchString(cur.text) {
					return nil, fmt.Errorf("%s:%d: a curl command in a ```%s block: make it ```sh so that the docs test runs it, or mark it skipped", name, cur.line, cur.lang)
				}
				cur = nil
			} else {
				body.WriteString(line)
				body.WriteByte('\n')
			}
			continue
		}
		if lang, ok := strings.CutPrefix(trimmed, "```"); ok {
			if skip != "" && !shellLangs[lang] {
				return nil, fmt.Errorf("%s:%d: a docs-test marker before a ```%s block, which never runs", name, skipAt, lang)
			}
			cur = &docBlock{file: name, line: n, lang: lang}
			if prevSet {
				cur.skip = skip
			}
			body.Reset()
			skip, prevSet = "", false
			continue
		}
		if m := skipMarkerRE.FindStringSubmatch(trimmed); m != nil {
			skip, skipAt, prevSet = m[1], n, true
			continue
		}
		if anyMarkerRE.MatchString(trimmed) {
			return nil, fmt.Errorf("%s:%d: a malformed docs-test marker %q; write <!-- docs-test: skip (why) -->", name, n, trimmed)
		}
		if skip != "" {
			return nil, fmt.Errorf("%s:%d: a docs-test marker not on the line just before a block", name, skipAt)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: a block that never ends", name, cur.line)
	}
	if skip != "" {
		return nil, fmt.Errorf("%s:%d: a docs-test marker before no block", name, skipAt)
	}
	return blocks, nil
}

// commands splits the block into the commands a reader would paste one at
// a time; blank lines and lines of comments only are left out.
func (b docBlock) commands() []docCommand {
	var (
		cmds []docCommand
		cur  strings.Builder
		at   int
	)
	for i, line := range strings.Split(strings.TrimSuffix(b.text, "\n"), "\n") {
		if cur.Len() == 0 {
			t := strings.TrimSpace(line)
			if t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			at = b.line + 1 + i
		}
		cur.WriteString(line)
		if strings.HasSuffix(line, `\`) {
			cur.WriteByte('\n')
			continue
		}
		cmds = append(cmds, docCommand{line: at, text: cur.String()})
		cur.Reset()
	}
	if cur.Len() > 0 {
		cmds = append(cmds, docCommand{line: at, text: cur.String()})
	}
	return cmds
}

// withoutComments is the command without its shell comments: a # that
// begins a word outside quotes, to the end of its line.
func withoutComments(cmd string) string {
	var out strings.Builder
	var quote rune
	inComment, escaped := false, false
	prev := ' '
	for _, r := range cmd {
		switch {
		case inComment:
			if r == '\n' {
				inComment = false
				out.WriteRune(r)
			}
		case escaped:
			escaped = false
			out.WriteRune(r)
		case r == '\\' && quote != '\'':
			escaped = true
			out.WriteRune(r)
		case quote != 0:
			if r == quote {
				quote = 0
			}
			out.WriteRune(r)
		case r == '\'' || r == '"':
			quote = r
			out.WriteRune(r)
		case r == '#' && (prev == ' ' || prev == '\t' || prev == '\n' || prev == ';'):
			inComment = true
		default:
			out.WriteRune(r)
		}
		prev = r
	}
	return out.String()
}
