package auth

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
	"github.com/hearthwallet/hearth/core/store"
)

// KeyChange changes a live key: what it leaves unset keeps its value.
type KeyChange struct {
	Name *string
	// Permissions replace the key's; for delegations only (the host checks
	// them against its caller), nil for no change.
	Permissions *Scopes
	// Budget sets (what was used in the current period stays used) or,
	// null, removes the key's budget.
	Budget patch.Field[budget.Spec]
	// ExpiresAt moves the key's end (in the future, at most a year ahead)
	// or, null, removes it.
	ExpiresAt patch.Field[time.Time]
}

// Change applies ch to the live key id of userID ("" for any user's),
// not one a plugin holds, and returns it as changed.
func (k *Keys) Change(ctx context.Context, userID, id string, ch KeyChange) (*APIKey, error) {
	return k.change(ctx, id, ch, func(q *bun.UpdateQuery) *bun.UpdateQuery {
		q = q.Where("owner_plugin IS NULL")
		if userID != "" {
			q = q.Where("user_id = ?", userID)
		}
		return q
	})
}

// ChangeDelegated applies ch to plugin's live key id.
func (k *Keys) ChangeDelegated(ctx context.Context, plugin, id string, ch KeyChange) (*APIKey, error) {
	return k.change(ctx, id, ch, func(q *bun.UpdateQuery) *bun.UpdateQuery { return q.Where("owner_plugin = ?", plugin) })
}

// change is one conditional UPDATE of the key's row, the row a payment's
// budget charge updates in the payment's own transaction (ledger's
// chargeBudget): a change and the payments serialize on it, so each
// payment is checked against the budget in force when it commits. The
// answer is the row as the update left it (RETURNING), what it had used
// at that instant included.
func (k *Keys) change(ctx context.Context, id string, ch KeyChange, owned func(*bun.UpdateQuery) *bun.UpdateQuery) (*APIKey, error) {
	now := k.now().UTC().Truncate(time.Microsecond)
	set, err := ch.assignments(now)
	if err != nil {
		return nil, err
	}
	key := new(APIKey)
	_, err = k.db.Write(ctx, func(ctx context.Context, w bun.IDB) (sql.Result, error) {
		q := w.NewUpdate().Model(key).Where("id = ?", id).Where("revoked_at IS NULL").
			Where("(expires_at IS NULL OR expires_at > ?)", now).Returning("*")
		if len(set) == 0 {
			q = q.Set("id = id") // nothing to change: the row as it is, if it is live
		}
		for _, s := range set {
			q = q.Set(s.expr, s.args...)
		}
		return owned(q).Exec(ctx)
	})
	k.db.Changed(store.AuthTopic) // cached principals carry the budget
	if errors.Is(err, sql.ErrNoRows) || (err == nil && key.ID == "") {
		return nil, ErrKeyNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("changing API key %s: %w", id, err)
	}
	return key.presentAt(now), nil
}

type assignment struct {
	expr string
	args []any
}

// assignments are the SET clauses of ch at now, checked.
func (ch KeyChange) assignments(now time.Time) ([]assignment, error) {
	var set []assignment
	if ch.Name != nil {
		name := strings.TrimSpace(*ch.Name)
		if name == "" || utf8.RuneCountInString(name) > maxKeyNameLen {
			return nil, ErrKeyInvalid.Reasonf("name must have 1 to %d characters", maxKeyNameLen)
		}
		set = append(set, assignment{"name = ?", []any{name}})
	}
	if ch.Permissions != nil {
		if *ch.Permissions == 0 {
			return nil, ErrKeyInvalid.Reasonf("permissions must name at least one permission")
		}
		set = append(set, assignment{"permissions = ?", []any{*ch.Permissions}})
	}
	if ch.Budget.Null() {
		set = append(set, assignment{"budget_max_msat = NULL", nil}, assignment{"budget_renewal = NULL", nil})
	} else if spec := ch.Budget.Value; spec != nil {
		b, err := budgetAssignments(*spec, now)
		if err != nil {
			return nil, err
		}
		set = append(set, b...)
	}
	if ch.ExpiresAt.Null() {
		set = append(set, assignment{"expires_at = NULL", nil})
	} else if at := ch.ExpiresAt.Value; at != nil {
		if !at.After(now) || at.Sub(now) > MaxKeyExpiry {
			return nil, ErrKeyInvalid.Reasonf("expires_at must be in the future, at most a year ahead")
		}
		set = append(set, assignment{"expires_at = ?", []any{at.UTC()}})
	}
	return set, nil
}

// budgetAssignments give the key the budget spec at now. What the key has
// used stays used when its period under the renewal it had is the current
// one, and then counts in the new renewal's current period; otherwise the
// period is over and nothing is used yet. Every SET expression reads the
// row as it was, in SQLite and PostgreSQL alike.
func budgetAssignments(spec budget.Spec, now time.Time) ([]assignment, error) {
	if err := spec.Validate(); err != nil {
		return nil, ErrKeyInvalid.Reasonf("%s", err.Error())
	}
	renewal, err := budget.ParseRenewal(string(spec.Renewal))
	if err != nil {
		return nil, ErrKeyInvalid.Reasonf("budget %s", err.Error())
	}
	current := `CASE budget_renewal WHEN 'daily' THEN ? WHEN 'weekly' THEN ? WHEN 'monthly' THEN ? WHEN 'yearly' THEN ? ELSE '' END`
	periods := []any{budget.Period(budget.Daily, now), budget.Period(budget.Weekly, now),
		budget.Period(budget.Monthly, now), budget.Period(budget.Yearly, now)}
	return []assignment{
		{"budget_used_msat = CASE WHEN budget_period = (" + current + ") THEN budget_used_msat ELSE 0 END", periods},
		{"budget_period = ?", []any{budget.Period(renewal, now)}},
		{"budget_max_msat = ?", []any{spec.MaxMsat}},
		{"budget_renewal = ?", []any{string(renewal)}},
	}, nil
}
