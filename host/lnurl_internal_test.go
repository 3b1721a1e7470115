package host

import "testing"

func FuzzLNURLAnswers(f *testing.F) {
	f.Add(200, []byte(`{"tag":"payRequest","callback":"https://x/cb","minSendable":1000,"maxSendable":2000,"metadata":"[[\"text/plain\",\"hi\"]]"}`))
	f.Add(200, []byte(`{"pr":"lnbcrt1","routes":[]}`))
	f.Add(404, []byte(`{"status":"ERROR","reason":"no such user"}`))
	f.Add(200, []byte(`[1,2`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		if p, err := parsePayParams(status, body); err == nil {
			if p.MinSendable <= 0 || p.MaxSendable < p.MinSendable || p.Callback == "" || p.Tag != "payRequest" {
				t.Fatalf("accepted %+v", p)
			}
		}
		if pr, err := parsePayAnswer(status, body); err == nil && (pr == "" || len(pr) > 7089) {
			t.Fatalf("accepted invoice %q", pr)
		}
	})
}
