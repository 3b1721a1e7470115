package lnd

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"

	"google.golang.org/grpc/credentials"
)

// transportCredentials trusts exactly the node's certificate, given as a
// file path or as PEM, hex or base64 (of PEM or DER).
func transportCredentials(value string) (credentials.TransportCredentials, error) {
	raw, err := material(value)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if block, _ := pem.Decode(raw); block == nil {
		cert, err := x509.ParseCertificate(raw)
		if err != nil {
			return nil, fmt.Errorf("neither PEM nor DER: %w", err)
		}
		pool.AddCert(cert)
	} else if !pool.AppendCertsFromPEM(raw) {
		return nil, errors.New("no certificate in PEM")
	}
	return credentials.NewTLS(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}), nil
}

// loadMacaroon reads the macaroon from a file path, hex or base64.
func loadMacaroon(value string) ([]byte, error) {
	return material(value)
}

// material returns the bytes value stands for: a file's contents when value
// names an existing file, else value itself when it is PEM, else value
// decoded from hex or base64.
func material(value string) ([]byte, error) {
	value = strings.TrimSpace(value)
	if value == "" {
		return nil, errors.New("not set")
	}
	if strings.HasPrefix(value, "-----BEGIN") {
		return []byte(value), nil
	}
	if b, err := os.ReadFile(value); err == nil {
		return b, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if b, err := hex.DecodeString(value); err == nil {
		return b, nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(value); err == nil {
			return b, nil
		}
	}
	return nil, fmt.Errorf("%q is no readable file, nor hex, nor base64", abbreviate(value))
}

func abbreviate(s string) string {
	if len(s) > 24 {
		return s[:24] + "…"
	}
	return s
}

// macaroonCredential sends the macaroon, hex encoded, with every call, as
// LND expects.
type macaroonCredential string

// GetRequestMetadata implements credentials.PerRPCCredentials.
func (m macaroonCredential) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"macaroon": string(m)}, nil
}

// RequireTransportSecurity implements credentials.PerRPCCredentials.
func (m macaroonCredential) RequireTransportSecurity() bool { return true }

var _ credentials.PerRPCCredentials = macaroonCredential("")
