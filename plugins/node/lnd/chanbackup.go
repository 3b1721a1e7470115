package lnd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/lightningnetwork/lnd/lnrpc"
)

// ChannelBackupFile is where, under the data directory, Hearth keeps the
// node's static channel backup: lnd's encrypted multi-channel backup, the
// file `lncli restorechanbackup --multi_file` reads.
const ChannelBackupFile = "lnd/channel.backup"

// channelBackupRetry bounds the wait before subscribing again after the
// node went away.
const channelBackupRetry = 30 * time.Second

// KeepChannelBackup keeps the file at path equal to the node's static
// channel backup until ctx ends: written at once from
// ExportAllChannelBackups, then again on every change lnd streams
// (SubscribeChannelBackups: a channel opened or closed). Each write
// replaces the file whole (a new file synced, then renamed). When the
// node goes away it subscribes again, waiting longer each time up to
// 30 s. The macaroon needs offchain:read.
func (n *Node) KeepChannelBackup(ctx context.Context, path string, log *slog.Logger) {
	wait := time.Second
	for ctx.Err() == nil {
		err := n.followChannelBackups(ctx, path, log)
		if ctx.Err() != nil {
			return
		}
		log.Warn("lnd channel backup: following the node's backups ended; subscribing again", "in", wait, "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		wait = min(2*wait, channelBackupRetry)
	}
}

// followChannelBackups writes the node's backup now and on each change,
// until the stream ends.
func (n *Node) followChannelBackups(ctx context.Context, path string, log *slog.Logger) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Subscribed before the export: a change in between is streamed,
	// not lost.
	stream, err := n.ln.SubscribeChannelBackups(ctx, &lnrpc.ChannelBackupSubscription{})
	if err != nil {
		return fmt.Errorf("subscribing to channel backups: %w", err)
	}
	snap, err := n.ln.ExportAllChannelBackups(ctx, &lnrpc.ChanBackupExportRequest{})
	if err != nil {
		return fmt.Errorf("exporting channel backups: %w", err)
	}
	for {
		if err := writeChannelBackup(path, snap, log); err != nil {
			log.Error("lnd channel backup: writing it", "path", path, "err", err)
		}
		if snap, err = stream.Recv(); err != nil {
			return err
		}
	}
}

// writeChannelBackup writes the multi-channel backup of snap to path,
// unless the file holds it already.
func writeChannelBackup(path string, snap *lnrpc.ChanBackupSnapshot, log *slog.Logger) error {
	multi := snap.GetMultiChanBackup()
	if len(multi.GetMultiChanBackup()) == 0 {
		return errors.New("the node sent no multi-channel backup")
	}
	data := multi.GetMultiChanBackup()
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".channel.backup-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // gone once renamed
	_, err = f.Write(data)
	if err = errors.Join(err, f.Chmod(0o600), f.Sync(), f.Close()); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync() //nolint:errcheck // best effort: the rename is done
		d.Close()
	}
	log.Info("lnd channel backup written", "path", path, "channels", len(multi.GetChanPoints()), "bytes", len(data))
	return nil
}
