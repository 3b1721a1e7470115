package host_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/host"
	"github.com/hearthwallet/hearth/plugintest"
)

// receiver is a test endpoint that answers each request with the next of
// its codes (then 200), and keeps what it got.
type receiver struct {
	*httptest.Server
	mu    sync.Mutex
	codes map[string][]int // by path
	got   []string         // path + " " + body, in arrival order
}

func newReceiver(t *testing.T, codes map[string][]int) *receiver {
	r := &receiver{codes: codes}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		code := 200
		if cs := r.codes[req.URL.Path]; len(cs) > 0 {
			code, r.codes[req.URL.Path] = cs[0], cs[1:]
		}
		if code == 200 {
			r.got = append(r.got, req.URL.Path+" "+string(body)+" "+req.Header.Get("Title"))
		}
		w.WriteHeader(code)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) received() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.got...)
}

// fastRetry has the sender retry within milliseconds, so that tests see
// retries.
const fastRetry = 20 * time.Millisecond

// waitSend waits until send id of c has left pending, and returns it.
func waitSend(t *testing.T, e *plugintest.Env, c *host.Caller, id string) *host.SendStatus {
	t.Helper()
	var st *host.SendStatus
	e.Eventually("send "+id+" to be done", func() bool {
		var err error
		st, err = c.SendStatus(context.Background(), id)
		return err == nil && st.State != host.SendPending
	})
	return st
}

// TestSenderDeliversAtLeastOnce: on both databases, a send is tried until
// the receiver answers 2xx; a key sent twice is sent once; sends to one
// dest arrive in the order they were queued, a failing one holding the
// rest back; a 4xx refusal is given up at once; a send whose next attempt
// would fall past its give-up time is given up; a host not granted is
// refused when queued.
func TestSenderDeliversAtLeastOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := plugintest.New(t, db, plugintest.Options{AllowPrivate: true, SendRetry: fastRetry})
		ctx := context.Background()
		rcv := newReceiver(t, map[string][]int{"/retry": {503, 502}, "/ordered": {500}, "/gone": {404}, "/late": {503}})
		c := builtin(t, e, "notifier", "", "http:outbound:127.0.0.1")

		st, err := c.Send(ctx, host.Send{URL: rcv.URL + "/retry", Body: []byte("hello"), Headers: map[string]string{"Title": "t"}, Key: "k1"})
		if err != nil || st.State != host.SendPending {
			t.Fatalf("queueing: %+v %v", st, err)
		}
		again, err := c.Send(ctx, host.Send{URL: rcv.URL + "/retry", Body: []byte("hello again"), Key: "k1"})
		if err != nil || again.ID != st.ID || !again.Duplicate {
			t.Fatalf("the same key again: %+v %v", again, err)
		}
		if done := waitSend(t, e, c, st.ID); done.State != host.SendDelivered || done.Attempts != 3 || *done.LastStatus != 200 {
			t.Fatalf("after two failures: %+v", done)
		}

		var ids []string
		for _, b := range []string{"a", "b", "c", "d"} {
			st, err := c.Send(ctx, host.Send{URL: rcv.URL + "/ordered", Body: []byte(b), Dest: "topic"})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, st.ID)
		}
		for _, id := range ids {
			waitSend(t, e, c, id)
		}

		gone, _ := c.Send(ctx, host.Send{URL: rcv.URL + "/gone"})
		if st := waitSend(t, e, c, gone.ID); st.State != host.SendGivenUp || st.Attempts != 1 || *st.LastStatus != 404 {
			t.Fatalf("a 404: %+v", st)
		}
		got := strings.Join(rcv.received(), "|")
		if want := "/retry hello t|/ordered a |/ordered b |/ordered c |/ordered d "; got != want {
			t.Fatalf("received %q\nwant     %q", got, want)
		}

		var ce *host.CallError
		if _, err := c.Send(ctx, host.Send{URL: "http://elsewhere.example/x"}); !errors.As(err, &ce) || ce.Code != host.ErrPermission {
			t.Fatalf("a host not granted: %v", err)
		}
		if _, err := c.Send(ctx, host.Send{URL: rcv.URL, Body: make([]byte, host.MaxSendBody+1)}); !errors.As(err, &ce) || ce.Code != "invalid" {
			t.Fatalf("a body too large: %v", err)
		}
	})
}

// TestSenderGivesUpPastItsTime: a send that fails when its next attempt
// would come after its give-up time is given up, not tried again.
func TestSenderGivesUpPastItsTime(t *testing.T) {
	t.Parallel()
	e := plugintest.New(t, storetest.SQLite(t), plugintest.Options{AllowPrivate: true, SendRetry: 2 * time.Minute})
	rcv := newReceiver(t, map[string][]int{"/late": {503}})
	c := builtin(t, e, "notifier", "", "http:outbound:127.0.0.1")
	st, err := c.Send(context.Background(), host.Send{URL: rcv.URL + "/late", GiveUpAfter: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if done := waitSend(t, e, c, st.ID); done.State != host.SendGivenUp || done.Attempts != 1 || *done.LastStatus != 503 {
		t.Fatalf("past its give-up time: %+v", done)
	}
}

// TestSendSurvivesARestart: on both databases, a send queued by a process
// that stops before it is delivered (no sender runs there) is delivered
// by the next process on the same database, once.
func TestSendSurvivesARestart(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		rcv := newReceiver(t, nil)
		first := plugintest.New(t, db, plugintest.Options{AllowPrivate: true, NoRun: true})
		st, err := builtin(t, first, "notifier", "", "http:outbound:127.0.0.1").
			Send(context.Background(), host.Send{URL: rcv.URL + "/later", Body: []byte("x"), Key: "once"})
		if err != nil {
			t.Fatal(err)
		}
		second := plugintest.New(t, storetest.Replica(t, db), plugintest.Options{AllowPrivate: true, SendRetry: fastRetry})
		c := builtin(t, second, "notifier", "", "http:outbound:127.0.0.1")
		if done := waitSend(t, second, c, st.ID); done.State != host.SendDelivered {
			t.Fatalf("after the restart: %+v", done)
		}
		if got := rcv.received(); len(got) != 1 {
			t.Fatalf("received %v, want the send once", got)
		}
	})
}
