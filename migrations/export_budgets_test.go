package migrations

// BudgetsUp and BudgetsDown are 20261127000005's two ways.
var (
	BudgetsUp   = alterBudgets(budgetsUp)
	BudgetsDown = alterBudgets(budgetsDown)
)
