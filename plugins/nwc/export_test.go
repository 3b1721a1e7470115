package nwc

// WalletSecret derives a connection's wallet key, for the tests of
// package nwc_test that seed connections in bulk.
var WalletSecret = walletSecret

// ServiceSecret is the service's secret key, for the same tests.
func (p *Plugin) ServiceSecret() string { return p.secretKey() }
