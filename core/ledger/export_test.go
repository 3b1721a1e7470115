package ledger

// OwnBatches is how many batches of payments inside the instance s has
// sent to PostgreSQL (0 on SQLite, which has no batches).
func OwnBatches(s *Service) int64 {
	if s.own == nil {
		return 0
	}
	return s.own.batches.Load()
}
