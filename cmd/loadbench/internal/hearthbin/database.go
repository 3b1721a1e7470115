package hearthbin

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/jackc/pgx/v5"
)

// FreshDatabase creates database name through adminURL's connection,
// dropping one of that name first, and returns its URL and what drops it.
func FreshDatabase(ctx context.Context, adminURL, name string) (string, func() error, error) {
	if adminURL == "" {
		return "", nil, errors.New("no PostgreSQL URL: pass -postgres or set HEARTH_TEST_POSTGRES_URL")
	}
	u, err := url.Parse(adminURL)
	if err != nil {
		return "", nil, fmt.Errorf("PostgreSQL URL: %w", err)
	}
	run := func(ctx context.Context, sql string) error {
		conn, err := pgx.Connect(ctx, adminURL)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, sql)
		return err
	}
	ident := pgx.Identifier{name}.Sanitize()
	if err := run(ctx, "DROP DATABASE IF EXISTS "+ident+" WITH (FORCE)"); err != nil {
		return "", nil, fmt.Errorf("dropping an older %s: %w", name, err)
	}
	if err := run(ctx, "CREATE DATABASE "+ident); err != nil {
		return "", nil, fmt.Errorf("creating database %s: %w", name, err)
	}
	u.Path = "/" + name
	drop := func() error {
		if err := run(context.Background(), "DROP DATABASE IF EXISTS "+ident+" WITH (FORCE)"); err != nil {
			return fmt.Errorf("dropping database %s: %w", name, err)
		}
		return nil
	}
	return u.String(), drop, nil
}
