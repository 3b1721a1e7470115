package auth

import (
	"time"

	"github.com/hearthwallet/hearth/core/budget"
)

// setBudget gives key the budget spec asks for (none when spec is nil),
// its period the one of now, nothing used yet.
func (key *APIKey) setBudget(spec *budget.Spec, now time.Time) error {
	if spec == nil {
		return nil
	}
	if err := spec.Validate(); err != nil {
		return ErrKeyInvalid.Reasonf("%s", err.Error())
	}
	renewal, err := budget.ParseRenewal(string(spec.Renewal))
	if err != nil {
		return ErrKeyInvalid.Reasonf("budget %s", err.Error())
	}
	limit, name := spec.MaxMsat, string(renewal)
	key.BudgetMaxMsat, key.BudgetRenewal = &limit, &name
	key.BudgetUsedMsat, key.BudgetPeriod = 0, budget.Period(renewal, now)
	return nil
}

// renewal is how key's budget renews; Never for a key without one.
func (key *APIKey) renewal() budget.Renewal {
	if key.BudgetRenewal == nil {
		return budget.Never
	}
	// Kept by setBudget, so known; an unknown one has the one period of
	// Never, as budget.Period says.
	return budget.Renewal(*key.BudgetRenewal)
}

// present fills key's Budget as it stands now (presentAt).
func (k *Keys) present(key *APIKey) *APIKey { return key.presentAt(k.now()) }

// presentAt fills key's Budget, as it stands at now: what the current
// period has used, nothing if the period charged last is over.
func (key *APIKey) presentAt(now time.Time) *APIKey {
	if key.BudgetMaxMsat != nil {
		key.Budget = budget.Current(*key.BudgetMaxMsat, key.renewal(), key.BudgetUsedMsat, key.BudgetPeriod, now)
	}
	return key
}
