package main

import (
	"errors"
	"flag"
)

// Asking for help is no failure: `hearth --help`, `hearth serve --help`,
// `hearth help`, and the --help of the commands with flags of their own
// (plugin, backup, restore, and each plugin command) print their usage
// and exit 0.

// helpAsked reports whether args, the command and what follows it, ask
// for hearth's usage: the command help, or -h, -help or --help after a
// command that has no flags of its own (before a "--"). The commands
// with flags of their own print their usage when their flag set meets
// -h, and answer flag.ErrHelp, which helpShown turns into success.
func helpAsked(args []string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "help":
		return true
	case "serve", "migrate", "ledger", "node", "version", "cln-guard":
	default:
		return false
	}
	for _, a := range args[1:] {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// helpShown is err, or nil when err says that help was asked for and
// shown (flag.ErrHelp, from any command's flag set).
func helpShown(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}
