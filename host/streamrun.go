package host

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/hearthwallet/hearth/core/outbox"
)

// streamQueue is how many events the tail hands a stream ahead of its
// deliveries; a stream further behind (a receiver retried, or slow) reads
// the outbox itself until it has caught up.
const streamQueue = 256

// The tail reads no more events than every attached stream has room for,
// and waits while one has less than streamMinRead: streams held back
// together (by the pace, while the machine is busy) stay attached and
// share one reading of the outbox, where each one reading for itself
// would read the whole outbox over again (one stream's events are among
// everyone's). A stream short of room that has delivered nothing for
// streamStall while at least as many have room (its receiver hung or
// failing) is detached instead, so that it holds nobody back.
const (
	streamMinRead  = 64
	streamStall    = 2 * time.Second
	streamRoomWait = 20 * time.Millisecond
)

// streamSaveEvery is how often the workers' progress (cursors, the
// attempts that succeeded) is saved, all of it in one transaction: a
// crash sends again at most that much, once more.
const streamSaveEvery = 100 * time.Millisecond

// streamRunner delivers the active streams while the sender leads. One
// reader, the tail, reads the outbox once for every stream that has caught
// up with it and hands each the events it takes; each stream's worker
// delivers its own in order.
type streamRunner struct {
	s   *Sender
	box *outbox.Outbox

	mu      sync.Mutex
	workers map[streamID]*streamWorker
	tail    int64 // the events up to tail were handed to the attached workers
	reading bool  // the tail is being read: no worker attaches meanwhile
	// moved is closed, and replaced, when tail moves.
	moved chan struct{}
	// slots bound the requests in flight (SenderConfig.StreamParallel),
	// and budget paces them while payments queue.
	slots  chan struct{}
	budget *streamBudget
}

// streamID names a stream: its owner and key.
type streamID struct{ owner, key string }

// runStreams delivers the streams until ctx ends.
func (s *Sender) runStreams(ctx context.Context, box *outbox.Outbox) {
	head, _ := box.Head()
	r := &streamRunner{s: s, box: box, workers: map[streamID]*streamWorker{}, tail: head, moved: make(chan struct{}),
		slots: make(chan struct{}, s.cfg.StreamParallel), budget: newStreamBudget(s.cfg.Paying)}
	s.runner.Store(r)
	defer s.runner.CompareAndSwap(r, nil)
	var wg sync.WaitGroup
	defer func() {
		wg.Wait()
		r.saveAll(context.WithoutCancel(ctx)) // the cursors where the workers stopped
	}()
	box.Follow(ctx, StreamsConsumer, r.position)
	wg.Go(func() { r.feed(ctx) })
	wg.Go(func() { r.saveLoop(ctx) })
	wg.Go(func() { r.budget.run(ctx) })
	poll := time.NewTicker(s.cfg.Poll)
	defer poll.Stop()
	prune := time.NewTicker(time.Hour)
	defer prune.Stop()
	r.prune(ctx)
	for {
		r.reload(ctx, &wg)
		select {
		case <-ctx.Done():
			return
		case <-poll.C:
		case <-s.streamWake:
		case <-prune.C:
			r.prune(ctx)
		}
	}
}

// StreamsConsumer names the streams' tail among the outbox's consumers
// (their lag).
const StreamsConsumer = "host:streams"

// position is the tail's: how far the streams that keep up have read.
func (r *streamRunner) position() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tail
}

// policy is owner's StreamPolicy.
func (s *Sender) policy(owner string) StreamPolicy {
	if p, ok := s.policies.Load(owner); ok {
		return p.(StreamPolicy)
	}
	var p StreamPolicy
	p.fill()
	return p
}

// reload starts a worker for each active stream that has none, hands the
// others their row as stored (a test to send), and stops those of the
// streams gone or disabled.
func (r *streamRunner) reload(ctx context.Context, wg *sync.WaitGroup) {
	rows, err := r.s.streams.active(ctx)
	if err != nil {
		if ctx.Err() == nil {
			r.s.log.WarnContext(ctx, "streams: reading them", "err", err)
		}
		return
	}
	seen := map[streamID]bool{}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range rows {
		id := streamID{rows[i].Owner, rows[i].Key}
		seen[id] = true
		if w := r.workers[id]; w != nil {
			w.refresh(&rows[i])
			continue
		}
		w := newStreamWorker(r, &rows[i])
		wctx, cancel := context.WithCancel(ctx)
		w.stop = cancel
		r.workers[id] = w
		wg.Go(func() {
			w.run(wctx)
			cancel()
		})
	}
	for id, w := range r.workers {
		if !seen[id] {
			w.stop()
			delete(r.workers, id)
		}
	}
}

// feed reads the outbox after the tail, once for every attached worker,
// and hands each the events it takes, until ctx ends.
func (r *streamRunner) feed(ctx context.Context) {
	for {
		head, changed := r.box.Head()
		// While paced, the tail reads no more than twice what the streams
		// may send, streamMinRead at a time (streambudget.go).
		if r.budget.readWait(ctx, streamMinRead) != nil {
			return
		}
		pos, f, room, any := r.begin(time.Now())
		if r.budget.paced() {
			room = min(room, streamMinRead)
		}
		if head > pos && any && room < streamMinRead {
			r.abandon() // the attached workers are full: wait for them to deliver
			select {
			case <-ctx.Done():
				return
			case <-time.After(streamRoomWait):
			}
			continue
		}
		reached := pos
		var evs []outbox.Event
		if head > pos {
			reached = head
			if any {
				var err error
				if evs, reached, err = r.box.Read(ctx, pos, f, room); err != nil {
					if ctx.Err() == nil {
						r.s.log.WarnContext(ctx, "streams: reading the outbox", "err", err)
					}
					reached = pos
				}
			}
		}
		r.hand(pos, reached, evs)
		if reached > pos && reached < head {
			continue // more to read
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
	}
}

// begin starts a reading of the tail: no worker attaches until hand (or
// abandon) ends it. It returns the tail, what to read for the attached
// workers (their types; their wallet when they share one), how many
// events every one of them has room for, and whether any is attached. A
// worker short of room that has delivered nothing for streamStall while
// at least as many have room is detached first.
func (r *streamRunner) begin(now time.Time) (pos int64, f outbox.Filter, room int, any bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reading = true
	short, roomy := 0, 0
	for _, w := range r.workers {
		switch {
		case !w.attached:
		case cap(w.queue)-len(w.queue) < streamMinRead:
			short++
			if w.shortSince.IsZero() {
				w.shortSince = now
			}
		default:
			roomy++
			w.shortSince = time.Time{}
		}
	}
	room = streamQueue
	wallets := map[string]bool{}
	for _, w := range r.workers {
		if !w.attached {
			continue
		}
		if !w.shortSince.IsZero() && now.Sub(w.shortSince) > streamStall && now.Sub(w.progressed()) > streamStall && roomy >= short {
			w.attached, w.shortSince = false, time.Time{}
			short--
			w.nudge()
			continue
		}
		any = true
		room = min(room, cap(w.queue)-len(w.queue))
		wallets[w.row.WalletID] = true
		for _, t := range w.types {
			if !slices.Contains(f.Types, t) {
				f.Types = append(f.Types, t)
			}
		}
	}
	if len(wallets) == 1 {
		for w := range wallets {
			f.WalletID = w
		}
	}
	return r.tail, f, room, any
}

// abandon ends a reading begun without reading anything.
func (r *streamRunner) abandon() {
	r.mu.Lock()
	r.reading = false
	r.mu.Unlock()
}

// hand ends a reading from pos: it gives each attached worker the events
// of evs it takes, up to reached, and moves the tail there. (begin read
// no more than each had room for; one whose queue were full all the same
// would be detached, to read for itself.)
func (r *streamRunner) hand(pos, reached int64, evs []outbox.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reading = false
	for _, w := range r.workers {
		if !w.attached {
			continue
		}
		for _, e := range evs {
			if !w.takes(e) {
				continue
			}
			select {
			case w.queue <- e:
				continue
			default:
				w.attached = false
			}
			break
		}
		if w.attached {
			w.fedTo = reached
			w.nudge()
		}
	}
	r.tail = reached
	close(r.moved)
	r.moved = make(chan struct{})
}

// attached counts the workers the tail feeds.
func (r *streamRunner) attached() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, w := range r.workers {
		if w.attached {
			n++
		}
	}
	return n
}

// attach attaches w when it has read up to the tail (its cursor at
// least): the tail hands it what comes after. Else it returns the channel
// closed when the tail moves.
func (r *streamRunner) attach(w *streamWorker, cursor int64) (bool, <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.reading && cursor >= r.tail {
		w.attached, w.fedTo = true, cursor
		return true, nil
	}
	return false, r.moved
}

// fed returns how far the tail has handed w its events, when w is
// attached and has none of them waiting.
func (r *streamRunner) fed(w *streamWorker) (int64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !w.attached || len(w.queue) > 0 {
		return 0, false
	}
	return w.fedTo, true
}

// saveLoop saves the workers' progress every streamSaveEvery.
func (r *streamRunner) saveLoop(ctx context.Context) {
	tick := time.NewTicker(streamSaveEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			r.saveAll(ctx)
		}
	}
}

// saveAll saves what every worker did since its last save.
func (r *streamRunner) saveAll(ctx context.Context) {
	r.mu.Lock()
	ws := make([]*streamWorker, 0, len(r.workers))
	for _, w := range r.workers {
		ws = append(ws, w)
	}
	r.mu.Unlock()
	var ps []progress
	for _, w := range ws {
		if p, ok := w.takeProgress(); ok {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		return
	}
	if err := r.s.streams.save(ctx, ps); err != nil {
		if ctx.Err() == nil {
			r.s.log.WarnContext(ctx, "streams: saving their progress", "err", err)
		}
		for _, p := range ps { // kept for the next save
			if w := r.worker(streamID{p.owner, p.key}); w != nil {
				w.giveBack(p)
			}
		}
	}
}

func (r *streamRunner) worker(id streamID) *streamWorker {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.workers[id]
}

// streamKeepAttempts is how long a stream's attempts are kept.
const streamKeepAttempts = 30 * 24 * time.Hour

func (r *streamRunner) prune(ctx context.Context) {
	if err := r.s.streams.prune(ctx, time.Now().UTC().Add(-streamKeepAttempts)); err != nil && ctx.Err() == nil {
		r.s.log.WarnContext(ctx, "streams: pruning", "err", err)
	}
}
