package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"math"
	mathrand "math/rand"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"

	"stud/studv1"
)

// actTimeout bounds one act, as the Python bots' timeout=30: an Act call, or a Play act's
// wait for its answer.
const actTimeout = 30 * time.Second

// streamEnded is the act error of a Play act that could not be sent: its stream had ended
// (the stream's own status is counted among the stream errors).
const streamEnded = "PLAY_STREAM_ENDED"

// retryAfter is the pause before a failed WatchTable or Play stream is opened again.
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
	play       bool          // act over each seat's Play stream (else unary Act calls)
	opening    chan struct{} // a slot per WatchTable or Play call waiting for its first message
	stopping   atomic.Bool   // the window is over: no new Act
	closing    atomic.Bool   // the streams are being closed: their errors are not counted
	inflight   atomic.Int64  // Acts being paced, sent or answered
	moved      nodes         // connections to the nodes tables moved to
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
	// acts holds the Play acts sent whose change has reached none of the table's streams
	// yet: action_id -> sent at. The first update carrying the id (on whichever seat's
	// stream: the actor's may not be first) gives the act's sequence, and moves it to
	// pending.
	acts map[string]float64
	// movedAt is when a seat of the table first followed it to another node (+Inf: never).
	movedAt float64
	// node counts the moves the table's seats have followed: each node numbers the table's
	// changes afresh, so arrivals and pending are of its current node only.
	node int
	// dropped counts the window's answered Acts pending when the table moved: their updates
	// can no longer be matched at every seat (counted as incomplete).
	dropped int
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
		acts:     map[string]float64{},
		movedAt:  math.Inf(1),
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

// resolve notes that the Play act id caused change sequence, if the act is still waiting
// for it: the act is answered, and its latency is measured once the change has reached every
// seat (t.mu held).
func (t *table) resolve(id string, sequence int64) {
	sent, ok := t.acts[id]
	if !ok {
		return
	}
	delete(t.acts, id)
	if t.w.window.covers(sent) {
		t.w.stats.resolved(sent > t.movedAt)
	}
	t.answered(sequence, sent)
}

func (t *table) measured(sent, lastSeat float64) {
	if t.w.window.covers(sent) {
		t.w.stats.latency(lastSeat - sent)
	}
}

// playAct is a bot's act sent on its Play stream, until its answer on that stream.
type playAct struct {
	id    string
	sent  float64
	seen  int64       // the sequence of the snapshot it was chosen on
	timer *time.Timer // gives up on it after actTimeout
}

// bot is one seat: a WatchTable stream and an Act call when its turn comes, or one Play
// stream carrying both.
type bot struct {
	t    *table
	seat int32
	ctx  context.Context // the worker's, with the seat's token
	rng  *mathrand.Rand
	// sendMu: one Send at a time on the Play stream (grpc-go allows one concurrent sender).
	sendMu sync.Mutex

	// follows counts the TABLE_MOVED refusals followed since the seat's last message (only
	// its watch goroutine uses it).
	follows int

	// Guarded by t.mu.
	client   studv1.TableServiceClient // at the node serving the table (it may move)
	node     int                       // the moves this seat has followed (table.node)
	view     *seatView                 // the latest message
	sequence int64
	// actFrom: no Act on a snapshot older than this: our last Act's change (which may
	// already hand us the next turn: a new street can open on us), or the one after the
	// snapshot an Act failed on.
	actFrom int64
	acting  bool
	// Play: the open stream (nil between streams), and the act awaiting its answer on it.
	stream  studv1.TableService_PlayClient
	pending *playAct
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

// watch keeps the seat's WatchTable (or Play) stream open until the worker closes, acting
// on each message; ready is called once, at the first message.
func (b *bot) watch(ready func()) {
	w := b.t.w
	request := &studv1.WatchTableRequest{Table: b.t.name}
	receive := b.receive
	if w.play {
		receive = b.play
	}
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
		err := receive(request, func() {
			b.follows = 0
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
		if b.follow(err) {
			continue
		}
		w.stats.streamError(err, w.window)
		select {
		case <-time.After(retryAfter):
		case <-w.ctx.Done():
			return
		}
	}
}

// follow points the seat at the node its table moved to when err is an UNAVAILABLE /
// TABLE_MOVED refusal naming one, unless it has followed followsInARow times without a
// message; true when the stream is to be opened again there at once.
func (b *bot) follow(err error) bool {
	address := movedTo(err)
	if address == "" || b.follows >= followsInARow {
		return false
	}
	client, dialErr := b.t.w.moved.client(address)
	if dialErr != nil {
		return false
	}
	b.follows++
	t := b.t
	t.mu.Lock()
	b.client = client
	if moment := now(); moment < t.movedAt {
		t.movedAt = moment
	}
	// The new node numbers the table's changes from its own start: forget the old node's.
	b.node++
	if b.node > t.node {
		t.node = b.node
		for _, sent := range t.pending {
			if t.w.window.covers(sent) {
				t.dropped++
			}
		}
		t.arrivals = map[int64]*arrival{}
		t.pending = map[int64]float64{}
	}
	b.view, b.sequence, b.actFrom = nil, -1, 0
	t.mu.Unlock()
	b.t.w.stats.followed()
	return true
}

// currentClient is the seat's client at the node serving its table (t.mu not held).
func (b *bot) currentClient() studv1.TableServiceClient {
	b.t.mu.Lock()
	defer b.t.mu.Unlock()
	return b.client
}

// receive runs one WatchTable call to its end: io.EOF when the server ended it with OK.
func (b *bot) receive(request *studv1.WatchTableRequest, received func()) error {
	stream, err := b.currentClient().WatchTable(b.ctx, request, grpc.ForceCodec(viewCodec{}))
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
		b.viewed(message, moment)
		b.t.mu.Unlock()
	}
}

// play runs one Play call to its end (io.EOF when the server ended it with OK): request
// first, then the seat's updates, and the results of its acts that no update answers. The
// bot's acts are sent on it meanwhile (act).
func (b *bot) play(request *studv1.WatchTableRequest, received func()) error {
	t := b.t
	// The call's own context: returning ends it, whatever ended the loop.
	ctx, cancel := context.WithCancel(b.ctx)
	defer cancel()
	stream, err := b.currentClient().Play(ctx, grpc.ForceCodec(viewCodec{}))
	if err != nil {
		return err
	}
	// io.EOF: the call has ended already; RecvMsg below returns its status.
	err = stream.Send(&studv1.PlayRequest{Request: &studv1.PlayRequest_Watch{Watch: request}})
	if err != nil && err != io.EOF {
		return err
	}
	t.mu.Lock()
	b.stream = stream
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		b.stream = nil
		if b.pending != nil {
			// Its answer, if any, went with the stream: the bot acts again on its next
			// turn. The act stays in t.acts: another seat's stream may still see its change.
			b.done()
		}
		t.mu.Unlock()
	}()
	for {
		message := &playMessage{}
		if err := stream.RecvMsg(message); err != nil {
			return err
		}
		received()
		moment := now()
		t.mu.Lock()
		if message.update {
			b.viewed(&message.view, moment)
		} else {
			b.result(message.result, moment)
		}
		t.mu.Unlock()
	}
}

// viewed takes the seat's latest message (t.mu held): the change reached one more seat, it
// may answer a Play act (this bot's or another seat's), and it may be the bot's turn.
func (b *bot) viewed(message *seatView, moment float64) {
	t, w := b.t, b.t.w
	if b.node < t.node {
		// The old node's last words after another seat followed the table: its sequences
		// are not the new node's.
		return
	}
	if message.carries {
		t.arrived(message.sequence, moment)
		if w.window.covers(moment) {
			w.stats.updates.Add(1)
		}
		if w.play && message.actionID != "" {
			t.resolve(message.actionID, message.sequence)
		}
	}
	b.view = message
	b.sequence = message.sequence
	if p := b.pending; p != nil && message.actionID == p.id {
		// The bot's own act, answered by its change: the round trip ends here.
		if w.window.covers(p.sent) {
			w.stats.roundTrip(moment - p.sent)
		}
		if message.sequence > b.actFrom {
			b.actFrom = message.sequence
		}
		b.done()
		return
	}
	b.maybeAct()
}

// result takes the answer to a Play act that no update answers (t.mu held): refused, or an
// id the table had already accepted.
func (b *bot) result(result *studv1.ActResult, moment float64) {
	t, w := b.t, b.t.w
	p := b.pending
	if p == nil || result.GetActionId() != p.id || b.node < t.node {
		// An act the bot gave up on (actTimeout): counted then.
		return
	}
	inWindow := w.window.covers(p.sent)
	switch answer := result.Result.(type) {
	case *studv1.ActResult_Accepted:
		sequence := answer.Accepted.GetSequence()
		t.resolve(p.id, sequence)
		if inWindow {
			w.stats.roundTrip(moment - p.sent)
		}
		if sequence > b.actFrom {
			b.actFrom = sequence
		}
	case *studv1.ActResult_Refused:
		delete(t.acts, p.id)
		if !w.closing.Load() {
			w.stats.refused(answer.Refused, inWindow)
		}
		if p.seen+1 > b.actFrom {
			b.actFrom = p.seen + 1
		}
	default:
		// Neither: not the contract's; counted as an unknown refusal.
		delete(t.acts, p.id)
		w.stats.actErrorKey("UNKNOWN", inWindow)
		if p.seen+1 > b.actFrom {
			b.actFrom = p.seen + 1
		}
	}
	b.done()
}

// expire gives up on the Play act p after actTimeout without an answer on the bot's stream:
// an act error, unless another seat's stream has seen its change (t.mu not held).
func (b *bot) expire(p *playAct) {
	t, w := b.t, b.t.w
	t.mu.Lock()
	defer t.mu.Unlock()
	if b.pending != p {
		return
	}
	if _, unanswered := t.acts[p.id]; unanswered {
		delete(t.acts, p.id)
		if !w.closing.Load() {
			w.stats.actErrorKey(codeNames[codes.DeadlineExceeded], w.window.covers(p.sent))
		}
	}
	if p.seen+1 > b.actFrom {
		b.actFrom = p.seen + 1
	}
	b.done()
}

// done ends the bot's act (t.mu held): it may act again, at once if its turn has come back
// meanwhile (a new street can open on it).
func (b *bot) done() {
	if p := b.pending; p != nil {
		p.timer.Stop()
		b.pending = nil
	}
	b.acting = false
	b.maybeAct()
	// After maybeAct: the count never drops to 0 while the bot goes on acting.
	b.t.w.inflight.Add(-1)
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

// act waits for the table's pace, then sends one action for the seat: an Act call whose
// answer it notes, or an act on the Play stream, answered on that stream (viewed, result).
func (b *bot) act() {
	t, w := b.t, b.t.w
	t.mu.Lock()
	wait := t.due() - now()
	t.mu.Unlock()
	if wait > 0 {
		time.Sleep(time.Duration(wait * float64(time.Second)))
	}
	t.mu.Lock()
	if w.play && b.stream == nil {
		// Between two Play streams: the next one's snapshot brings the turn back.
		b.acting = false
		w.inflight.Add(-1)
		t.mu.Unlock()
		return
	}
	if w.stopping.Load() || !b.myTurn() {
		b.done()
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
	inWindow := w.window.covers(sent)
	if w.play {
		// Noted before it is sent: its change may reach any seat before Send returns.
		request.Table = "" // the watched table
		p := &playAct{id: request.ActionId, sent: sent, seen: seen}
		p.timer = time.AfterFunc(actTimeout, func() { b.expire(p) })
		b.pending = p
		t.acts[p.id] = sent
		stream := b.stream
		t.mu.Unlock()
		w.stats.acted(inWindow)
		b.sendAct(stream, request, p, inWindow)
		return
	}
	client, node := b.client, b.node
	t.mu.Unlock()
	w.stats.acted(inWindow)
	b.actUnary(client, node, request, seen, sent, inWindow)
	t.mu.Lock()
	b.done()
	t.mu.Unlock()
}

// sendAct sends the act p on the Play stream; if it cannot, the act is an error and the bot
// is done with it.
func (b *bot) sendAct(stream studv1.TableService_PlayClient, request *studv1.ActRequest, p *playAct, inWindow bool) {
	t, w := b.t, b.t.w
	b.sendMu.Lock()
	err := stream.Send(&studv1.PlayRequest{Request: &studv1.PlayRequest_Act{Act: request}})
	b.sendMu.Unlock()
	if err == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.acts, p.id)
	if !w.closing.Load() {
		key := streamEnded
		if err != io.EOF {
			key = errorReason(err)
		}
		w.stats.actErrorKey(key, inWindow)
	}
	if b.pending == p {
		if p.seen+1 > b.actFrom {
			b.actFrom = p.seen + 1
		}
		b.done()
	}
}

// actUnary sends one Act call and notes its answer.
func (b *bot) actUnary(client studv1.TableServiceClient, node int, request *studv1.ActRequest, seen int64, sent float64, inWindow bool) {
	t, w := b.t, b.t.w
	ctx, cancel := context.WithTimeout(b.ctx, actTimeout)
	response, err := client.Act(ctx, request)
	cancel()
	if err != nil {
		t.mu.Lock()
		if node == b.node && seen+1 > b.actFrom {
			b.actFrom = seen + 1
		}
		t.mu.Unlock()
		if !w.closing.Load() {
			w.stats.actError(err, inWindow)
		}
		return
	}
	done := now()
	t.mu.Lock()
	if inWindow {
		w.stats.answered(done-sent, sent > t.movedAt)
	}
	if node < t.node {
		// Answered by the node the table has left: its sequence is not the new node's.
		t.mu.Unlock()
		return
	}
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
