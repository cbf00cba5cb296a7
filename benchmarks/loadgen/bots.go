package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	mathrand "math/rand"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"stud/studv1"
)

// actTimeout bounds one Act call, as the Python bots' timeout=30.
const actTimeout = 30 * time.Second

// retryAfter is the pause before a failed WatchTable stream is opened again.
const retryAfter = 200 * time.Millisecond

// arrivalsKept is how many changes a table remembers the arrivals of before it forgets the
// oldest half (those no answered Act waits for).
const arrivalsKept = 4096

// worker is what every bot of the process shares.
type worker struct {
	ctx        context.Context // cancelled when closing: ends every stream and call
	stats      *stats
	window     *window
	aggression float64
	opening    chan struct{} // a slot per WatchTable call waiting for its first message
	stopping   atomic.Bool   // the window is over: no new Act
	closing    atomic.Bool   // the streams are being closed: their errors are not counted
	inflight   atomic.Int64  // Acts being paced, sent or answered
}

// arrival is which seats a change has reached: how many, and when the latest of them got it.
type arrival struct {
	seats int
	last  float64
}

// table is one table as its bots see it: pacing, and which seats each update reached. mu
// guards it and its bots' state (their streams and Acts run on goroutines of their own).
type table struct {
	mu       sync.Mutex
	w        *worker
	name     string
	pace     float64
	seats    int
	lastSent float64
	arrivals map[int64]*arrival
	// pending holds answered Acts whose update has not reached every seat yet: sequence ->
	// sent at.
	pending map[int64]float64
}

func newTable(w *worker, name string, seats int, pace float64, rng *mathrand.Rand) *table {
	return &table{
		w:     w,
		name:  name,
		pace:  pace,
		seats: seats,
		// Out of phase: the first action of each table comes at a random point of its pace.
		lastSent: now() - rng.Float64()*pace,
		arrivals: map[int64]*arrival{},
		pending:  map[int64]float64{},
	}
}

func (t *table) due() float64 { return t.lastSent + t.pace }

// arrived notes that change sequence reached one more seat at moment (t.mu held).
func (t *table) arrived(sequence int64, moment float64) {
	entry := t.arrivals[sequence]
	if entry == nil {
		entry = &arrival{}
		t.arrivals[sequence] = entry
		if len(t.arrivals) > arrivalsKept {
			t.forget(sequence)
		}
	}
	entry.seats++
	entry.last = moment
	if entry.seats == t.seats {
		if sent, ok := t.pending[sequence]; ok {
			delete(t.pending, sequence)
			t.measured(sent, moment)
		}
	}
}

// forget drops the oldest half of the arrivals but those an answered Act waits for (and
// keep, the change being noted).
func (t *table) forget(keep int64) {
	sequences := make([]int64, 0, len(t.arrivals))
	for sequence := range t.arrivals {
		sequences = append(sequences, sequence)
	}
	sort.Slice(sequences, func(i, j int) bool { return sequences[i] < sequences[j] })
	for _, sequence := range sequences[:arrivalsKept/2] {
		if _, waited := t.pending[sequence]; !waited && sequence != keep {
			delete(t.arrivals, sequence)
		}
	}
}

// answered notes an Act sent at sent whose change is sequence (t.mu held).
func (t *table) answered(sequence int64, sent float64) {
	if entry := t.arrivals[sequence]; entry != nil && entry.seats >= t.seats {
		t.measured(sent, entry.last)
	} else {
		t.pending[sequence] = sent
	}
}

func (t *table) measured(sent, lastSeat float64) {
	if t.w.window.covers(sent) {
		t.w.stats.latency(lastSeat - sent)
	}
}

// bot is one seat: a WatchTable stream, and an Act when its turn comes.
type bot struct {
	t      *table
	seat   int32
	client studv1.TableServiceClient
	ctx    context.Context // the worker's, with the seat's token
	rng    *mathrand.Rand

	// Guarded by t.mu.
	view     *seatView // the latest message
	sequence int64
	// actFrom: no Act on a snapshot older than this: our last Act's change (which may
	// already hand us the next turn: a new street can open on us), or the one after the
	// snapshot an Act failed on.
	actFrom int64
	acting  bool
}

func newBot(t *table, seat int32, client studv1.TableServiceClient, token string, rng *mathrand.Rand) *bot {
	return &bot{
		t:        t,
		seat:     seat,
		client:   client,
		ctx:      metadata.AppendToOutgoingContext(t.w.ctx, "authorization", "Bearer "+token),
		rng:      rng,
		sequence: -1,
	}
}

// watch keeps the seat's WatchTable stream open until the worker closes, acting on each
// message; ready is called once, at the first message.
func (b *bot) watch(ready func()) {
	w := b.t.w
	request := &studv1.WatchTableRequest{Table: b.t.name}
	first := true
	for !w.closing.Load() {
		// A few streams start at a time: thousands at once overflow gRPC's queue of calls the
		// server has yet to take (grpc.server.max_pending_requests), which cancels some.
		select {
		case w.opening <- struct{}{}:
		case <-w.ctx.Done():
			return
		}
		opening := true
		release := func() {
			if opening {
				<-w.opening
				opening = false
			}
		}
		err := b.receive(request, func() {
			release()
			if first {
				first = false
				ready()
			}
		})
		release()
		if err == io.EOF || w.closing.Load() {
			return
		}
		w.stats.streamError(err, w.window)
		select {
		case <-time.After(retryAfter):
		case <-w.ctx.Done():
			return
		}
	}
}

// receive runs one WatchTable call to its end: io.EOF when the server ended it with OK.
func (b *bot) receive(request *studv1.WatchTableRequest, received func()) error {
	w := b.t.w
	stream, err := b.client.WatchTable(b.ctx, request, grpc.ForceCodec(viewCodec{}))
	if err != nil {
		return err
	}
	for {
		message := &seatView{}
		if err := stream.RecvMsg(message); err != nil {
			return err
		}
		received()
		moment := now()
		b.t.mu.Lock()
		if message.carries {
			b.t.arrived(message.sequence, moment)
			if w.window.covers(moment) {
				w.stats.updates.Add(1)
			}
		}
		b.view = message
		b.sequence = message.sequence
		b.maybeAct()
		b.t.mu.Unlock()
	}
}

// myTurn: the snapshot says a hand runs, it is this seat's turn with something legal, and
// it is not older than actFrom (t.mu held).
func (b *bot) myTurn() bool {
	view := b.view
	return view != nil &&
		view.handInProgress &&
		view.turnSeat == b.seat &&
		len(view.legalActions) > 0 &&
		b.sequence >= b.actFrom
}

// maybeAct starts an Act when it is this seat's turn and none is under way (t.mu held).
func (b *bot) maybeAct() {
	w := b.t.w
	if !b.acting && !w.stopping.Load() && b.myTurn() {
		b.acting = true
		w.inflight.Add(1)
		go b.act()
	}
}

// act waits for the table's pace, then sends one Act for the seat and notes its answer.
func (b *bot) act() {
	t, w := b.t, b.t.w
	defer func() {
		t.mu.Lock()
		b.acting = false
		// Updates that came while acting may have brought the turn back (a new street).
		b.maybeAct()
		t.mu.Unlock()
		w.inflight.Add(-1)
	}()
	t.mu.Lock()
	wait := t.due() - now()
	t.mu.Unlock()
	if wait > 0 {
		time.Sleep(time.Duration(wait * float64(time.Second)))
	}
	t.mu.Lock()
	if w.stopping.Load() || !b.myTurn() {
		t.mu.Unlock()
		return
	}
	view := b.view
	chosen := chooseAction(view.legalActions, b.rng.Float64(), w.aggression)
	request := &studv1.ActRequest{
		Table:      t.name,
		HandNumber: view.handNumber,
		Kind:       chosen.Kind,
		Amount:     chosen.Amount,
		ActionId:   actionID(),
	}
	seen := b.sequence
	sent := now()
	t.lastSent = sent
	t.mu.Unlock()
	inWindow := w.window.covers(sent)
	w.stats.acted(inWindow)

	ctx, cancel := context.WithTimeout(b.ctx, actTimeout)
	response, err := b.client.Act(ctx, request)
	cancel()
	if err != nil {
		t.mu.Lock()
		if seen+1 > b.actFrom {
			b.actFrom = seen + 1
		}
		t.mu.Unlock()
		if !w.closing.Load() {
			w.stats.actError(err, inWindow)
		}
		return
	}
	done := now()
	if inWindow {
		w.stats.answered(done - sent)
	}
	t.mu.Lock()
	if response.Sequence > b.actFrom {
		b.actFrom = response.Sequence
	}
	t.answered(response.Sequence, sent)
	t.mu.Unlock()
}

// actionID is a random 128-bit id in hex, as uuid.uuid4().hex.
func actionID() string {
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		fatal("no random action id: " + err.Error())
	}
	return hex.EncodeToString(id[:])
}
