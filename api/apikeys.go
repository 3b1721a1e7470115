package api

import (
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/budget"
	"github.com/hearthwallet/hearth/core/store"
)

type apiKeyRequest struct {
	Name        *string  `json:"name"`
	Permissions []string `json:"permissions"`
	Description *string  `json:"description,omitempty"`
	// Expiry is the key's lifetime in seconds, at most one year.
	Expiry *int64 `json:"expiry,omitempty"`
	// Budget bounds what payments made with the key may spend per period,
	// fees included; fixed for the key's life. None: unbounded.
	Budget *budget.Spec `json:"budget,omitempty"`
}

type adminAPIKeyRequest struct {
	UserID *string `json:"user_id"`
	apiKeyRequest
}

func (r *apiKeyRequest) toNewKey() (auth.NewKey, error) {
	if r.Name == nil {
		return auth.NewKey{}, required("name")
	}
	if r.Permissions == nil {
		return auth.NewKey{}, required("permissions")
	}
	return auth.NewKey{Name: *r.Name, Description: r.Description, Permissions: r.Permissions, Expiry: r.Expiry,
		Budget: r.Budget}, nil
}

func (s *Server) createMyKey(w http.ResponseWriter, req bunrouter.Request) error {
	var body apiKeyRequest
	if err := decode(req, &body); err != nil {
		return err
	}
	nk, err := body.toNewKey()
	if err != nil {
		return err
	}
	return s.createKeyFor(w, req, nk)
}

func (s *Server) createKey(w http.ResponseWriter, req bunrouter.Request) error {
	var body adminAPIKeyRequest
	if err := decode(req, &body); err != nil {
		return err
	}
	if body.UserID == nil {
		return required("user_id")
	}
	nk, err := body.toNewKey()
	if err != nil {
		return err
	}
	nk.UserID = *body.UserID
	return s.createKeyFor(w, req, nk)
}

func (s *Server) createKeyFor(w http.ResponseWriter, req bunrouter.Request, nk auth.NewKey) error {
	key, err := s.keys.Create(req.Context(), auth.FromContext(req.Context()), nk)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, key)
	return nil
}

// ownerFilter is the caller's user id on /me routes and "" (any user) on
// admin routes, where a user_id query narrows the list.
func ownerFilter(req bunrouter.Request, me bool) string {
	if me {
		return auth.FromContext(req.Context()).UserID
	}
	return req.URL.Query().Get("user_id")
}

func (s *Server) listMyKeys(w http.ResponseWriter, req bunrouter.Request) error {
	return s.listKeysOf(w, req, true)
}

func (s *Server) listKeys(w http.ResponseWriter, req bunrouter.Request) error {
	return s.listKeysOf(w, req, false)
}

func (s *Server) listKeysOf(w http.ResponseWriter, req bunrouter.Request, me bool) error {
	page, err := pageParams(req)
	if err != nil {
		return err
	}
	keys, err := s.keys.List(req.Context(), ownerFilter(req, me), page)
	if err != nil {
		return err
	}
	writePage(w, req, page, keys, func(k *auth.APIKey) store.Cursor { return store.Cursor{CreatedAt: k.CreatedAt, ID: k.ID} })
	return nil
}

func (s *Server) getMyKey(w http.ResponseWriter, req bunrouter.Request) error {
	return getOwned(w, req, ownerFilter(req, true), s.keys.Get)
}

func (s *Server) getKey(w http.ResponseWriter, req bunrouter.Request) error {
	return getOwned(w, req, "", s.keys.Get)
}

func (s *Server) revokeMyKey(w http.ResponseWriter, req bunrouter.Request) error {
	return s.revokeKeyOf(w, req, true)
}

func (s *Server) revokeKey(w http.ResponseWriter, req bunrouter.Request) error {
	return s.revokeKeyOf(w, req, false)
}

func (s *Server) revokeKeyOf(w http.ResponseWriter, req bunrouter.Request, me bool) error {
	id, err := pathID(req)
	if err != nil {
		return err
	}
	owner := ""
	if me {
		owner = ownerFilter(req, true)
	}
	if err := s.keys.Revoke(req.Context(), owner, id); err != nil {
		return err
	}
	return noContent(w)
}
