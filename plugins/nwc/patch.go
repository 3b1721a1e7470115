package nwc

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/budget"
	"github.com/hearthwallet/hearth/core/patch"
	"github.com/hearthwallet/hearth/host"
)

// ChangeRequest changes a connection (PATCH): each field left out keeps
// its value; budget and expires_at sent as null remove them.
type ChangeRequest struct {
	Name *string `json:"name,omitempty"`
	// Methods replace the connection's (and "notifications"), within the
	// caller's permissions.
	Methods []string `json:"methods,omitempty"`
	// Budget replaces the budget; what the current period has used stays
	// used. Null removes it.
	Budget patch.Field[budget.Spec] `json:"budget,omitempty"`
	// ExpiresAt moves the connection's end; null removes it.
	ExpiresAt patch.Field[time.Time] `json:"expires_at,omitempty"`
}

// change applies a ChangeRequest to a live connection of walletID (any
// wallet's when ""). Budget, expiry and the permissions the methods imply
// are one conditional update of the connection's delegation, the row its
// payments' budget charges update, so a change racing payments holds each
// to the budget in force when it commits; the name and methods are then
// the connection's own row.
func (p *Plugin) change(ctx context.Context, req *host.BuiltinRequest, walletID string) (any, error) {
	id, err := req.PathUUID("id")
	if err != nil {
		return nil, err
	}
	in := req.Body.(*ChangeRequest)
	conn, err := p.connection(ctx, walletID, id)
	if err != nil {
		if errors.Is(err, errNoConnection) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	var dc host.DelegationChange
	dc.Budget, dc.ExpiresAt = in.Budget, in.ExpiresAt
	var name, methods *string
	if in.Name != nil {
		n := strings.TrimSpace(*in.Name)
		if n == "" || utf8.RuneCountInString(n) > maxName {
			return nil, ErrInvalid.Reasonf("name must have 1 to %d characters", maxName)
		}
		full := "nwc: " + n
		name, dc.Name = &n, &full
	}
	if in.Methods != nil {
		if len(in.Methods) == 0 {
			return nil, ErrInvalid.Reasonf("methods must name at least one method")
		}
		ms, perms, err := methodsOf(in.Methods)
		if err != nil {
			return nil, err
		}
		joined := strings.Join(ms, " ")
		methods, dc.Permissions = &joined, perms
	}
	d, err := p.host.ActFor(req.Caller).ChangeDelegation(ctx, id, dc)
	var ce *host.CallError
	if errors.As(err, &ce) && ce.Code == host.ErrDelegationNotFound {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	// A change of methods dates the info event anew, a second after the
	// one the relays hold at least (its creation's second is immutable).
	infoAt := max(p.cfg.Now().Unix(), conn.CreatedAt.Unix()+1)
	row, err := p.changeConnection(ctx, id, name, methods, infoAt)
	if err != nil {
		return nil, err
	}
	if methods != nil {
		p.relays.follow(ctx) // its info event republished with its methods
	}
	return p.present(row, d), nil
}

// changeConnection sets the name and methods of live connection id (nil:
// unchanged) and returns its row as changed. New methods date its info
// event at infoAt, or a second after the date it has when that is later
// (two changes in one second).
func (p *Plugin) changeConnection(ctx context.Context, id string, name, methods *string, infoAt int64) (*connRow, error) {
	row := new(connRow)
	_, err := p.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		q := w.NewUpdate().Model(row).Where("id = ?", id).Where("revoked_at IS NULL").Returning("*").Set("id = id")
		if name != nil {
			q = q.Set("name = ?", *name)
		}
		if methods != nil {
			q = q.Set("methods = ?", *methods).
				Set("info_at = CASE WHEN info_at IS NOT NULL AND info_at >= ? THEN info_at + 1 ELSE ? END", infoAt, infoAt)
		}
		return q.Exec(ctx)
	})
	if errors.Is(err, sql.ErrNoRows) || (err == nil && row.ID == "") {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("changing NWC connection %s: %w", id, err)
	}
	return row, nil
}
