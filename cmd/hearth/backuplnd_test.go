package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/app/backup"
	"github.com/hearthwallet/hearth/lib/poll"
	"github.com/hearthwallet/hearth/testkit/regtest"
)

// On lnd, the server keeps the node's static channel backup in its data
// directory: written at start, written again when a channel opens; a
// backup holds it, a restore gives it back, and `lncli restorechanbackup`
// takes it on a fresh node made from the same seed, which then knows the
// channel (waiting for its peer to close it).
func TestLNDChannelBackupRestores(t *testing.T) {
	t.Parallel()
	net := network.Get(t)
	ctx := context.Background()
	suffix := make([]byte, 4)
	rand.Read(suffix)
	name := "scb-" + hex.EncodeToString(suffix)
	node, seed, err := net.StartSeeded(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(node.Stop)
	addr, err := node.NewAddress(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := net.FundAddress(ctx, addr, 5_000_000); err != nil {
		t.Fatal(err)
	}
	if err := net.Mine(ctx, 1); err != nil {
		t.Fatal(err)
	}

	dataDir := filepath.Join(t.TempDir(), "data")
	environ := []string{"HEARTH_DATA_DIR=" + dataDir, "HEARTH_NODE_BACKEND=lnd",
		"HEARTH_NODE_LND_ADDRESS=" + node.RPCAddress, "HEARTH_NODE_LND_TLS_CERT=" + node.TLSCertPath(),
		"HEARTH_NODE_LND_MACAROON=" + node.MacaroonPath()}
	serveProcess(t, environ)
	scb := filepath.Join(dataDir, "lnd", "channel.backup")
	var before []byte
	poll.Until(t, 2*time.Minute, func() (err error) {
		before, err = os.ReadFile(scb)
		return err
	})
	// The node's funds confirm at their own pace: the channel opens once
	// the node can spend them.
	poll.Until(t, 2*time.Minute, func() error { return node.OpenChannel(ctx, net.Peer, 1_000_000, 0) })
	var points []string
	poll.Until(t, time.Minute, func() (err error) {
		if points, err = node.ChannelPoints(ctx); err == nil && len(points) != 1 {
			err = fmt.Errorf("channels %v", points)
		}
		return err
	})
	if err := net.Mine(ctx, 6); err != nil {
		t.Fatal(err)
	}
	var after []byte
	poll.Until(t, 2*time.Minute, func() error {
		b, err := os.ReadFile(scb)
		if err == nil && bytes.Equal(b, before) {
			err = errors.New("the channel backup has not changed since the channel opened")
		}
		after = b
		return err
	})

	archive := filepath.Join(t.TempDir(), "hearth.tar.gz")
	runHearth(t, environ, "backup", "--to", archive)
	m, err := backup.Verify(archive)
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := entryOf(m, "lnd/channel.backup"); !ok || e.Size != int64(len(after)) {
		t.Fatalf("the archive's channel backup: %+v (the file holds %d bytes)", m.Files, len(after))
	}
	restoredDir := filepath.Join(t.TempDir(), "data")
	out := runHearth(t, append(environ, "HEARTH_DATA_DIR="+restoredDir), "restore", "--from", archive)
	restored := filepath.Join(restoredDir, backup.RestoredDir, "lnd", "channel.backup")

	node.Stop() // the node is lost; one comes back from its seed
	fresh, _, err := net.StartSeeded(ctx, name+"-restored", seed)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fresh.Stop)
	if fresh.Pubkey != node.Pubkey {
		t.Fatalf("the node from the seed is %s, was %s", fresh.Pubkey, node.Pubkey)
	}
	bin, err := regtest.Binaries()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("hearth restore said:\n%s", out)
	lncli, err := exec.Command(filepath.Join(bin, "lncli"), "--network=regtest", "--rpcserver="+fresh.RPCAddress,
		"--tlscertpath="+fresh.TLSCertPath(), "--macaroonpath="+fresh.MacaroonPath(),
		"restorechanbackup", "--multi_file="+restored).CombinedOutput()
	if err != nil {
		t.Fatalf("lncli restorechanbackup: %v\n%s", err, lncli)
	}
	poll.Until(t, time.Minute, func() error {
		waiting, err := fresh.WaitingClose(ctx)
		if err == nil && !slices.Contains(waiting, points[0]) {
			err = fmt.Errorf("channels waiting to close %v, want %s", waiting, points[0])
		}
		return err
	})
}

// entryOf is the manifest's entry of name.
func entryOf(m *backup.Manifest, name string) (backup.Entry, bool) {
	for _, e := range m.Files {
		if e.Name == name {
			return e, true
		}
	}
	return backup.Entry{}, false
}
