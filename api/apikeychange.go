package api

import (
	"net/http"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/hearthwallet/hearth/core/auth"
	"github.com/hearthwallet/hearth/core/budget"
	"github.com/hearthwallet/hearth/core/patch"
)

// apiKeyChange is the body of PATCH /v1/me/api-keys/{id}: each field left
// out keeps its value; budget and expires_at sent as null remove them.
type apiKeyChange struct {
	Name *string `json:"name,omitempty"`
	// Budget replaces the key's budget; what the current period has used
	// stays used. Null removes it.
	Budget patch.Field[budget.Spec] `json:"budget,omitempty"`
	// ExpiresAt moves the key's end (in the future, at most a year ahead);
	// null removes it.
	ExpiresAt patch.Field[time.Time] `json:"expires_at,omitempty"`
}

func (s *Server) changeMyKey(w http.ResponseWriter, req bunrouter.Request) error {
	return s.changeKeyOf(w, req, ownerFilter(req, true))
}

func (s *Server) changeKey(w http.ResponseWriter, req bunrouter.Request) error {
	return s.changeKeyOf(w, req, "")
}

// changeKeyOf changes the key of the path, of owner unless owner is "".
// A key with a budget changes no budget: it would free itself, or
// another key, of what bounds it.
func (s *Server) changeKeyOf(w http.ResponseWriter, req bunrouter.Request, owner string) error {
	id, err := pathID(req)
	if err != nil {
		return err
	}
	var body apiKeyChange
	if err := decode(req, &body); err != nil {
		return err
	}
	if auth.FromContext(req.Context()).Budgeted && body.Budget.Set {
		return auth.ErrKeyScopeExceeded.Reasonf("A key with a budget cannot change budgets")
	}
	key, err := s.keys.Change(req.Context(), owner, id, auth.KeyChange{Name: body.Name, Budget: body.Budget, ExpiresAt: body.ExpiresAt})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, key)
	return nil
}
