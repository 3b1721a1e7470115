package api

import (
	"context"
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/hearthwallet/hearth/core/auth"
)

type passwordRequest struct {
	Password *string `json:"password"`
}

type tokenResponse struct {
	Token string `json:"token"`
}

type changePasswordRequest struct {
	CurrentPassword *string `json:"current_password"`
	NewPassword     *string `json:"new_password"`
}

func (s *Server) signUp(w http.ResponseWriter, req bunrouter.Request) error {
	return s.passwordToken(w, req, s.accounts.SignUp)
}

func (s *Server) signIn(w http.ResponseWriter, req bunrouter.Request) error {
	return s.passwordToken(w, req, s.accounts.SignIn)
}

func (s *Server) passwordToken(w http.ResponseWriter, req bunrouter.Request,
	fn func(ctx context.Context, password string) (string, error)) error {
	if s.oidc != nil {
		return auth.ErrPasswordAuthOff
	}
	var body passwordRequest
	if err := decode(req, &body); err != nil {
		return err
	}
	if body.Password == nil {
		return required("password")
	}
	token, err := fn(req.Context(), *body.Password)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, tokenResponse{Token: token})
	return nil
}

func (s *Server) changePassword(w http.ResponseWriter, req bunrouter.Request) error {
	if s.oidc != nil {
		return auth.ErrPasswordAuthOff
	}
	var body changePasswordRequest
	if err := decode(req, &body); err != nil {
		return err
	}
	if body.CurrentPassword == nil {
		return required("current_password")
	}
	if body.NewPassword == nil {
		return required("new_password")
	}
	if err := s.accounts.ChangePassword(req.Context(), *body.CurrentPassword, *body.NewPassword); err != nil {
		return err
	}
	return noContent(w)
}
