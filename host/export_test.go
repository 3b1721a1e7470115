package host

// AttachedStreams counts the streams the tail feeds now (none while the
// sender does not run them), for the tests of package host_test.
func (s *Sender) AttachedStreams() int {
	if r := s.runner.Load(); r != nil {
		return r.attached()
	}
	return 0
}
