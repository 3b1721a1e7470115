// Package budget is the arithmetic of spending budgets: how much a
// credential (an API key, say) may pay in a calendar period, the periods
// themselves in UTC (a day, an ISO week starting on Monday, a month, a
// year, or never renewing), and the records of a budget as asked for and
// as shown. The ledger enforces a budget in the payment's transaction; this
// package only names periods and checks requests.
package budget
