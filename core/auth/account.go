package auth

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/store"
)

const (
	settingAdminPassword   = "admin_password_hash"
	settingWelcomeComplete = "welcome_complete"
)

// dummyHash is compared against when nobody has signed up yet, so that a
// failed sign-in costs the same time either way.
var dummyHash, _ = HashPassword("hearth-timing-equaliser")

// Setup is the instance's first-run state.
type Setup struct {
	WelcomeComplete bool `json:"welcome_complete"`
	SignUpComplete  bool `json:"sign_up_complete"`
}

// Accounts manages the admin's password and the first-run flags.
type Accounts struct {
	db     *store.DB
	tokens *Tokens
}

// NewAccounts returns the account service.
func NewAccounts(db *store.DB, tokens *Tokens) *Accounts {
	return &Accounts{db: db, tokens: tokens}
}

// Setup reports the first-run flags.
func (a *Accounts) Setup(ctx context.Context) (Setup, error) {
	_, welcome, err := a.db.GetSetting(ctx, settingWelcomeComplete)
	if err != nil {
		return Setup{}, err
	}
	_, signedUp, err := a.db.GetSetting(ctx, settingAdminPassword)
	if err != nil {
		return Setup{}, err
	}
	return Setup{WelcomeComplete: welcome, SignUpComplete: signedUp}, nil
}

// MarkWelcomeComplete sets the welcome flag; doing it again changes nothing.
func (a *Accounts) MarkWelcomeComplete(ctx context.Context) error {
	_, err := store.InsertSetting(ctx, a.db.W, settingWelcomeComplete, "true")
	return err
}

// SignUp sets the admin password, once, and returns a sign-in token.
func (a *Accounts) SignUp(ctx context.Context, password string) (string, error) {
	if err := checkNewPassword(password); err != nil {
		return "", err
	}
	hash, err := HashPassword(password)
	if err != nil {
		return "", err
	}
	won, err := store.InsertSetting(ctx, a.db.W, settingAdminPassword, hash)
	if err != nil {
		return "", err
	}
	if !won {
		return "", ErrAlreadySignedUp
	}
	return a.tokens.Issue(AdminUserID, AllScopes)
}

// SignIn checks the admin password and returns a token with every scope.
func (a *Accounts) SignIn(ctx context.Context, password string) (string, error) {
	hash, ok, err := a.db.GetSetting(ctx, settingAdminPassword)
	if err != nil {
		return "", err
	}
	if !ok {
		hash = dummyHash
	}
	match, err := CheckPassword(hash, password)
	if err != nil {
		return "", fmt.Errorf("checking password: %w", err)
	}
	if !ok || !match {
		return "", ErrBadCredentials
	}
	return a.tokens.Issue(AdminUserID, AllScopes)
}

// ChangePassword replaces the admin password after checking the current one,
// and rotates the token secret so that every earlier token stops working.
func (a *Accounts) ChangePassword(ctx context.Context, current, next string) error {
	if err := checkNewPassword(next); err != nil {
		return err
	}
	hash, ok, err := a.db.GetSetting(ctx, settingAdminPassword)
	if err != nil {
		return err
	}
	if !ok {
		return ErrWrongPassword
	}
	match, err := CheckPassword(hash, current)
	if err != nil {
		return fmt.Errorf("checking password: %w", err)
	}
	if !match {
		return ErrWrongPassword
	}
	newHash, err := HashPassword(next)
	if err != nil {
		return err
	}
	err = a.db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		// Compare-and-swap on the hash that was checked: of two concurrent
		// changes, the second finds the hash changed and fails.
		swapped, err := store.SwapSetting(ctx, tx, settingAdminPassword, hash, newHash)
		if err != nil {
			return err
		}
		if !swapped {
			return ErrWrongPassword
		}
		return a.tokens.rotate(ctx, tx)
	})
	if err != nil {
		return err
	}
	return a.tokens.rotated(ctx)
}

func checkNewPassword(p string) error {
	if utf8.RuneCountInString(p) < MinPasswordLength || len(p) > maxPasswordLength {
		return ErrWeakPassword.Reasonf("The password must have between %d and %d characters", MinPasswordLength, maxPasswordLength)
	}
	return nil
}
