package nwc

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"
)

// maxMetadata bounds an app's metadata, as Alby Hub does: 4,096
// characters of its JSON.
const maxMetadata = 4_096

// metadataRow is the metadata kept of one transaction.
type metadataRow struct {
	bun.BaseModel `bun:"table:nwc_metadata"`
	WalletID      string    `bun:"wallet_id,pk"`
	Direction     string    `bun:"direction,pk"` // incoming, outgoing
	PaymentHash   string    `bun:"payment_hash,pk"`
	Metadata      string    `bun:"metadata"`
	CreatedAt     time.Time `bun:"created_at"`
}

// metadataOf checks the metadata param of a request: nil when absent or
// null, else a JSON object of at most maxMetadata characters.
func metadataOf(raw json.RawMessage) (json.RawMessage, *nwcError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	// Valid JSON that opens with a brace is an object.
	var compact bytes.Buffer
	if raw[0] != '{' || json.Compact(&compact, raw) != nil {
		return nil, errorf(codeOther, "metadata must be a JSON object")
	}
	if n := utf8.RuneCount(compact.Bytes()); n > maxMetadata {
		return nil, errorf(codeOther, "metadata must be at most %d characters of JSON, not %d", maxMetadata, n)
	}
	return compact.Bytes(), nil
}

// keepMetadata keeps meta for the transaction of walletID in direction
// with paymentHash; the first kept stays (a request sent again keeps the
// same).
func (p *Plugin) keepMetadata(ctx context.Context, walletID, direction, paymentHash string, meta json.RawMessage) error {
	if meta == nil || paymentHash == "" {
		return nil
	}
	row := &metadataRow{WalletID: walletID, Direction: direction, PaymentHash: paymentHash, Metadata: string(meta),
		CreatedAt: p.cfg.Now().UTC()}
	_, err := p.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		return w.NewInsert().Model(row).On("CONFLICT DO NOTHING").Exec(ctx)
	})
	if err != nil {
		return fmt.Errorf("keeping an NWC transaction's metadata: %w", err)
	}
	return nil
}

// withMetadata sets the metadata kept of walletID's transactions txs, in
// one read.
func (p *Plugin) withMetadata(ctx context.Context, walletID string, txs ...*transaction) error {
	var hashes []string
	for _, t := range txs {
		if t.PaymentHash != "" {
			hashes = append(hashes, t.PaymentHash)
		}
	}
	if len(hashes) == 0 {
		return nil
	}
	var rows []metadataRow
	err := p.db.R.NewSelect().Model(&rows).Where("wallet_id = ?", walletID).Where("payment_hash IN (?)", bun.In(hashes)).Scan(ctx)
	if err != nil {
		return fmt.Errorf("reading NWC transactions' metadata: %w", err)
	}
	kept := make(map[[2]string]string, len(rows))
	for _, r := range rows {
		kept[[2]string{r.Direction, r.PaymentHash}] = r.Metadata
	}
	for _, t := range txs {
		if m, ok := kept[[2]string{t.Type, t.PaymentHash}]; ok {
			t.Metadata = json.RawMessage(m)
		}
	}
	return nil
}
