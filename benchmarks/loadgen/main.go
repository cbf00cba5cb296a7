// Command stud-loadgen is a compiled load process for benchmarks/engine_load.py: the same
// bots as its Python load processes (_load, _Table, _Bot, choose_action), measuring the same
// way, at a fraction of the CPU per message.
//
// The driver writes one JSON line on stdin with the tables and their seats' tokens:
//
//	{"worker": 0, "address": "127.0.0.1:50051", "pace": 2.0, "seed": 7,
//	 "tables_per_channel": 50, "opening": 100, "settle_seconds": 5.0, "aggression": 0.1,
//	 "transport": "play",
//	 "tables": [{"name": "tables/t1", "tokens": ["<seat 1's JWT>", ..., "<seat 7's>"]}]}
//
// The process opens a gRPC connection per tables_per_channel tables and a stream per seat
// (at most `opening` waiting for their first message at once): with "transport": "play" a
// Play stream, which carries the seat's updates and its acts; with "unary" a WatchTable
// stream, the acts being Act calls. It prints {"event": "ready"} once every stream has its
// first message. The driver then writes {"start_in": seconds, "length": seconds}: the window
// starts start_in seconds after the line is read. Each act sent in the window is timed to the
// moment the last of its table's streams received the update carrying it: the update of the
// sequence the Act call answers, or over Play the first update of the table (on any seat's
// stream) whose action_id is the act's. After the window the bots stop acting, pending
// measurements settle for up to settle_seconds, and the process prints
// {"event": "done", "stats": {...}} (WorkerStats' fields; seconds) and exits 0. On a fatal
// error it prints {"event": "failed", "detail": "..."} and exits 1.
//
// Over Play an act is answered when its change first reaches one of the table's streams, and
// its round trip ends when it reaches the actor's own stream (or an ActResult answers it).
// A refused act counts among the act errors by its code and reason, as a failed Act call;
// one not answered on the actor's stream within 30 s as DEADLINE_EXCEEDED; one that could
// not be sent because the stream had ended as PLAY_STREAM_ENDED.
//
// It runs its goroutines on one thread unless GOMAXPROCS says otherwise. With
// STUD_LOADGEN_CPUPROFILE=FILE in its environment it writes a CPU profile of the
// window there (go tool pprof).
//
// A seat whose stream ends with UNAVAILABLE / TABLE_MOVED (its table moved to another engine
// node, or was taken over) opens it again at the gRPC address the refusal's ErrorInfo names,
// on one connection per such address, and acts there from then on; the stats count these
// follows ("followed"), not as stream errors. At most followsInARow without a message in
// between: after that the refusal counts as a stream error, and the seat retries where it is.
//
// stud-loadgen -selftest reads JSON lines {"legal": [...], "roll": r, "aggression": a} and
// prints the action each gets, for the tests to compare with choose_action.
//
// Build it with scripts/build-loadgen (offline, against Debian's Go packages; the gRPC code
// is generated from proto/stud/v1 into build/loadgen).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	mathrand "math/rand"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"

	"stud/studv1"
)

// spec is the driver's first line.
type spec struct {
	Worker           int     `json:"worker"`
	Address          string  `json:"address"`
	Pace             float64 `json:"pace"`
	Seed             int64   `json:"seed"`
	TablesPerChannel int     `json:"tables_per_channel"`
	Opening          int     `json:"opening"`
	SettleSeconds    float64 `json:"settle_seconds"`
	Aggression       float64 `json:"aggression"`
	Transport        string  `json:"transport"`
	Tables           []struct {
		Name   string   `json:"name"`
		Tokens []string `json:"tokens"`
	} `json:"tables"`
}

func (s *spec) check() error {
	var problems []string
	if s.Address == "" {
		problems = append(problems, "address is empty")
	}
	if s.Pace < 0 || math.IsNaN(s.Pace) {
		problems = append(problems, fmt.Sprintf("pace %v is not >= 0", s.Pace))
	}
	if s.TablesPerChannel < 1 {
		problems = append(problems, fmt.Sprintf("tables_per_channel %d is not >= 1", s.TablesPerChannel))
	}
	if s.Opening < 1 {
		problems = append(problems, fmt.Sprintf("opening %d is not >= 1", s.Opening))
	}
	if s.SettleSeconds < 0 {
		problems = append(problems, fmt.Sprintf("settle_seconds %v is not >= 0", s.SettleSeconds))
	}
	if s.Transport != "play" && s.Transport != "unary" {
		problems = append(problems, fmt.Sprintf("transport %q is not \"play\" or \"unary\"", s.Transport))
	}
	if len(s.Tables) == 0 {
		problems = append(problems, "no tables")
	}
	for i, t := range s.Tables {
		if !strings.HasPrefix(t.Name, "tables/") || len(t.Tokens) == 0 {
			problems = append(problems, fmt.Sprintf("tables[%d]: want a name \"tables/<id>\" and tokens, got %q with %d", i, t.Name, len(t.Tokens)))
		}
	}
	if len(problems) > 0 {
		return errors.New("bad spec: " + strings.Join(problems, "; "))
	}
	return nil
}

// windowLine is the driver's second line.
type windowLine struct {
	StartIn *float64 `json:"start_in"`
	Length  *float64 `json:"length"`
}

var stdout sync.Mutex

// emit writes one JSON line on stdout (one write: the driver reads whole lines).
func emit(value any) {
	line, err := json.Marshal(value)
	if err != nil {
		line = []byte(fmt.Sprintf(`{"event": "failed", "detail": %q}`, "encoding output: "+err.Error()))
	}
	stdout.Lock()
	defer stdout.Unlock()
	os.Stdout.Write(append(line, '\n'))
}

// fatal reports detail to the driver and exits 1.
func fatal(detail string) {
	emit(map[string]string{"event": "failed", "detail": detail})
	os.Exit(1)
}

// readLine decodes the next stdin line into into, refusing unknown fields.
func readLine(in *bufio.Reader, what string, into any) error {
	line, err := in.ReadBytes('\n')
	if err != nil && !(errors.Is(err, io.EOF) && len(line) > 0) {
		return fmt.Errorf("reading the %s line from stdin: %w", what, err)
	}
	decoder := json.NewDecoder(strings.NewReader(string(line)))
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(into); err != nil {
		return fmt.Errorf("the %s line is not what was expected: %w", what, err)
	}
	return nil
}

func main() {
	selftestMode := flag.Bool("selftest", false, "print chooseAction's choice for each JSON line of stdin")
	flag.Parse()
	if *selftestMode {
		if err := selftest(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "stud-loadgen:", err)
			os.Exit(1)
		}
		return
	}
	if os.Getenv("GOMAXPROCS") == "" {
		// The bots share the machine's cores with the engine: on one thread they spend less
		// (no scheduler spinning, no wake-ups across threads) and have CPU to spare.
		runtime.GOMAXPROCS(1)
	}
	result, err := run(bufio.NewReaderSize(os.Stdin, 1<<20))
	if err != nil {
		fatal(err.Error())
	}
	emit(map[string]any{"event": "done", "stats": result})
}

// sleepUntil sleeps until now() reaches moment.
func sleepUntil(moment float64) {
	if wait := moment - now(); wait > 0 {
		time.Sleep(time.Duration(wait * float64(time.Second)))
	}
}

func run(in *bufio.Reader) (*workerStats, error) {
	var s spec
	if err := readLine(in, "spec", &s); err != nil {
		return nil, err
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &worker{
		ctx:        ctx,
		stats:      newStats(s.Worker, len(s.Tables)),
		window:     newWindow(),
		aggression: s.Aggression,
		play:       s.Transport == "play",
		opening:    make(chan struct{}, s.Opening),
	}

	// One connection per channel (grpc-go never shares one between ClientConns).
	var conns []*grpc.ClientConn
	defer func() {
		for _, conn := range conns {
			conn.Close()
		}
		w.moved.close()
	}()
	for i := 0; i < (len(s.Tables)+s.TablesPerChannel-1)/s.TablesPerChannel; i++ {
		conn, err := dial(s.Address)
		if err != nil {
			return nil, err
		}
		conns = append(conns, conn)
	}

	rng := mathrand.New(mathrand.NewSource(s.Seed*1000 + int64(s.Worker)))
	var bots []*bot
	tables := make([]*table, len(s.Tables))
	for i, ts := range s.Tables {
		client := studv1.NewTableServiceClient(conns[i/s.TablesPerChannel])
		t := newTable(w, ts.Name, len(ts.Tokens), s.Pace, rng)
		tables[i] = t
		for seat, token := range ts.Tokens {
			bots = append(bots, newBot(t, int32(seat+1), client, token, mathrand.New(mathrand.NewSource(rng.Int63()))))
		}
	}

	var ready sync.WaitGroup
	var readyCount atomic.Int64
	ready.Add(len(bots))
	for _, b := range bots {
		go b.watch(func() {
			readyCount.Add(1)
			ready.Done()
		})
	}
	allReady := make(chan struct{})
	go func() {
		ready.Wait()
		close(allReady)
	}()
	limit := time.Duration((60 + float64(len(bots))/50) * float64(time.Second))
	select {
	case <-allReady:
	case <-time.After(limit):
		method := "WatchTable"
		if w.play {
			method = "Play"
		}
		return nil, fmt.Errorf("%d of %d %s streams had their first message after %s",
			readyCount.Load(), len(bots), method, limit)
	}
	emit(map[string]string{"event": "ready"})

	var line windowLine
	if err := readLine(in, "window", &line); err != nil {
		return nil, err
	}
	if line.StartIn == nil || line.Length == nil || *line.Length <= 0 {
		return nil, errors.New(`the window line needs "start_in" and "length" > 0`)
	}
	start := now() + math.Max(0, *line.StartIn)
	end := start + *line.Length
	w.window.set(start, end)

	sleepUntil(start)
	cpuStart, err := cpuSeconds()
	if err != nil {
		return nil, err
	}
	stopProfile, err := profile(os.Getenv("STUD_LOADGEN_CPUPROFILE"))
	if err != nil {
		return nil, err
	}
	sleepUntil(end)
	stopProfile()
	cpuEnd, err := cpuSeconds()
	if err != nil {
		return nil, err
	}
	w.stopping.Store(true)

	// Let acts in flight be answered and their updates reach every seat.
	deadline := now() + s.SettleSeconds
	for now() < deadline && (w.inflight.Load() > 0 || anyPending(tables)) {
		time.Sleep(50 * time.Millisecond)
	}
	incomplete := 0
	for _, t := range tables {
		t.mu.Lock()
		incomplete += t.dropped
		for _, sent := range t.pending {
			if w.window.covers(sent) {
				incomplete++
			}
		}
		t.mu.Unlock()
	}
	w.closing.Store(true)
	cancel()

	result := w.stats.copy()
	result.CPUSeconds = cpuEnd - cpuStart
	result.Updates = w.stats.updates.Load()
	result.Incomplete = incomplete
	result.Unanswered = result.Sent - result.Answered - result.Errored
	return result, nil
}

// profile starts a CPU profile of the process into path (none when path is empty); the
// function it returns stops it.
func profile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	file, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("STUD_LOADGEN_CPUPROFILE: %w", err)
	}
	if err := pprof.StartCPUProfile(file); err != nil {
		file.Close()
		return nil, fmt.Errorf("STUD_LOADGEN_CPUPROFILE: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		file.Close()
	}, nil
}

func anyPending(tables []*table) bool {
	for _, t := range tables {
		t.mu.Lock()
		pending := len(t.pending) > 0 || len(t.acts) > 0
		t.mu.Unlock()
		if pending {
			return true
		}
	}
	return false
}
