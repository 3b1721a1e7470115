package nwc

import (
	"errors"
	"fmt"

	"github.com/hearthwallet/hearth/core/fault"
	"github.com/hearthwallet/hearth/host"
)

// The error codes of NIP-47.
const (
	codeRateLimited           = "RATE_LIMITED"
	codeNotImplemented        = "NOT_IMPLEMENTED"
	codeInsufficientBalance   = "INSUFFICIENT_BALANCE"
	codeQuotaExceeded         = "QUOTA_EXCEEDED"
	codeRestricted            = "RESTRICTED"
	codeUnauthorized          = "UNAUTHORIZED"
	codeInternal              = "INTERNAL"
	codeOther                 = "OTHER"
	codeNotFound              = "NOT_FOUND"
	codePaymentFailed         = "PAYMENT_FAILED"
	codeUnsupportedEncryption = "UNSUPPORTED_ENCRYPTION"
)

// nwcError is a response's error.
type nwcError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// transient marks an error the same request may not meet again (a
	// payment in flight): its answer is not stored.
	transient bool
}

func errorf(code, format string, args ...any) *nwcError {
	return &nwcError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// errorOf is the NIP-47 error of a host or ledger error: the ledger's
// refusals by their codes, the host's refusals as RESTRICTED, anything
// else INTERNAL without its detail (which stays in the server's log).
func errorOf(err error) *nwcError {
	if f, ok := fault.As(err); ok {
		switch f.Code {
		case "insufficient_funds":
			return errorf(codeInsufficientBalance, "%s", f.Reason)
		case "budget_exceeded":
			return errorf(codeQuotaExceeded, "%s", f.Reason)
		case "not_found":
			return errorf(codeNotFound, "%s", f.Reason)
		case "permission_exceeded":
			return errorf(codeRestricted, "%s", f.Reason)
		}
		return errorf(codeOther, "%s", f.Reason)
	}
	var ce *host.CallError
	if errors.As(err, &ce) {
		if ce.Code == host.ErrPermission {
			return errorf(codeRestricted, "%s", ce.Message)
		}
		return errorf(codeOther, "%s", ce.Message)
	}
	return errorf(codeInternal, "internal error")
}
