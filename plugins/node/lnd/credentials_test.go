package lnd

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

func TestMaterialFromPathPEMHexOrBase64(t *testing.T) {
	t.Parallel()
	raw := []byte{0x02, 0x01, 0x03, 0xff, 0x10}
	path := filepath.Join(t.TempDir(), "admin.macaroon")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	pem := "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
	for _, tc := range []struct {
		name, value string
		want        []byte
	}{
		{"path", path, raw},
		{"hex", hex.EncodeToString(raw), raw},
		{"base64", base64.StdEncoding.EncodeToString(raw), raw},
		{"raw base64 url", base64.RawURLEncoding.EncodeToString(raw), raw},
		{"pem", pem, []byte(pem[:len(pem)-1])},
	} {
		got, err := material(tc.value)
		if err != nil || !bytes.Equal(got, tc.want) {
			t.Errorf("%s: material(%q) = %x, %v; want %x", tc.name, tc.value, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "  ", "/no/such/file.macaroon"} {
		if _, err := material(bad); err == nil {
			t.Errorf("material(%q) succeeded", bad)
		}
	}
}

func TestNewRefusesBadCredentials(t *testing.T) {
	t.Parallel()
	if _, err := New(Config{Address: "127.0.0.1:1", TLSCert: "bm90IGEgY2VydA==", Macaroon: "00"}); err == nil {
		t.Fatal("New accepted a certificate that is not one")
	}
}
