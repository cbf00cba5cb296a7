package main

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"stud/studv1"
)

// base is the process's clock origin: moments are seconds since it, on Go's monotonic clock.
var base = time.Now()

func now() float64 { return time.Since(base).Seconds() }

// window is the measured window [start, end) in now() seconds; +Inf until the driver sets it,
// so nothing counts before. Bots read it from every goroutine, hence the atomics.
type window struct{ start, end atomic.Uint64 }

func newWindow() *window {
	w := &window{}
	w.set(math.Inf(1), math.Inf(1))
	return w
}

func (w *window) set(start, end float64) {
	w.end.Store(math.Float64bits(end))
	w.start.Store(math.Float64bits(start))
}

func (w *window) bounds() (float64, float64) {
	return math.Float64frombits(w.start.Load()), math.Float64frombits(w.end.Load())
}

func (w *window) covers(moment float64) bool {
	start, end := w.bounds()
	return start <= moment && moment < end
}

// workerStats is benchmarks.engine_load.WorkerStats: the JSON the driver builds it from.
type workerStats struct {
	Worker       int            `json:"worker"`
	Tables       int            `json:"tables"`
	ActsTotal    int            `json:"acts_total"`
	Sent         int            `json:"sent"`
	Answered     int            `json:"answered"`
	Errored      int            `json:"errored"`
	Updates      int64          `json:"updates"`
	Latencies    []float64      `json:"latencies"`
	RoundTrips   []float64      `json:"round_trips"`
	Incomplete   int            `json:"incomplete"`
	Unanswered   int            `json:"unanswered"`
	ActErrors    map[string]int `json:"act_errors"`
	StreamErrors map[string]int `json:"stream_errors"`
	Followed     int            `json:"followed"`
	// AnsweredMoved counts the answered acts sent after a seat of their table followed it to
	// another node (answered there).
	AnsweredMoved int      `json:"answered_moved"`
	ErrorSamples  []string `json:"error_samples"`
	CPUSeconds    float64  `json:"cpu_seconds"`
}

// stats is a workerStats shared by every bot of the process.
type stats struct {
	mu      sync.Mutex
	s       workerStats
	updates atomic.Int64 // counted apart: one per message, the hottest counter
}

func newStats(worker, tables int) *stats {
	return &stats{s: workerStats{
		Worker:       worker,
		Tables:       tables,
		Latencies:    []float64{},
		RoundTrips:   []float64{},
		ActErrors:    map[string]int{},
		StreamErrors: map[string]int{},
		ErrorSamples: []string{},
	}}
}

// codeNames are the gRPC codes as Python's grpc.StatusCode names them.
var codeNames = map[codes.Code]string{
	codes.OK:                 "OK",
	codes.Canceled:           "CANCELLED",
	codes.Unknown:            "UNKNOWN",
	codes.InvalidArgument:    "INVALID_ARGUMENT",
	codes.DeadlineExceeded:   "DEADLINE_EXCEEDED",
	codes.NotFound:           "NOT_FOUND",
	codes.AlreadyExists:      "ALREADY_EXISTS",
	codes.PermissionDenied:   "PERMISSION_DENIED",
	codes.ResourceExhausted:  "RESOURCE_EXHAUSTED",
	codes.FailedPrecondition: "FAILED_PRECONDITION",
	codes.Aborted:            "ABORTED",
	codes.OutOfRange:         "OUT_OF_RANGE",
	codes.Unimplemented:      "UNIMPLEMENTED",
	codes.Internal:           "INTERNAL",
	codes.Unavailable:        "UNAVAILABLE",
	codes.DataLoss:           "DATA_LOSS",
	codes.Unauthenticated:    "UNAUTHENTICATED",
}

// errorReason is "CODE/REASON" of a gRPC error, REASON from the google.rpc.ErrorInfo in its
// status details (just "CODE" without one), as the Python bots key their error counts.
func errorReason(err error) string {
	st := status.Convert(err)
	name, ok := codeNames[st.Code()]
	if !ok {
		name = "UNKNOWN"
	}
	reason := ""
	for _, detail := range st.Details() {
		if info, ok := detail.(*errdetails.ErrorInfo); ok {
			reason = info.Reason
		}
	}
	if reason != "" {
		return name + "/" + reason
	}
	return name
}

func (s *stats) actError(err error, inWindow bool) {
	s.actErrorKey(errorReason(err), inWindow)
}

func (s *stats) actErrorKey(key string, inWindow bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.s.ActErrors[key]++
	if inWindow {
		s.s.Errored++
	}
}

// followed counts a stream opened again at the node its table moved to.
func (s *stats) followed() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.s.Followed++
}

func (s *stats) streamError(err error, win *window) {
	key := errorReason(err)
	_, end := win.bounds()
	late := now() - end
	s.mu.Lock()
	defer s.mu.Unlock()
	s.s.StreamErrors[key]++
	if len(s.s.ErrorSamples) < 3 {
		s.s.ErrorSamples = append(s.s.ErrorSamples, fmt.Sprintf("%s (%s s after the window)", key, signed(late)))
	}
}

// signed formats like Python's "{:+.1f}" (infinities as "-inf").
func signed(x float64) string {
	switch {
	case math.IsInf(x, -1):
		return "-inf"
	case math.IsInf(x, 1):
		return "+inf"
	}
	return fmt.Sprintf("%+.1f", x)
}

// cpuSeconds is the user + system CPU time this process has used (all its threads).
func cpuSeconds() (float64, error) {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		return 0, fmt.Errorf("getrusage: %w", err)
	}
	seconds := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return seconds(usage.Utime) + seconds(usage.Stime), nil
}

func (s *stats) acted(inWindow bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.s.ActsTotal++
	if inWindow {
		s.s.Sent++
	}
}

func (s *stats) answered(roundTrip float64, moved bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.s.Answered++
	if moved {
		s.s.AnsweredMoved++
	}
	s.s.RoundTrips = append(s.s.RoundTrips, roundTrip)
}

// resolved counts an act sent in the window as answered, its round trip noted apart (Play:
// the act is answered when its change first reaches one of the table's streams, and its
// round trip ends when the actor's own stream gets it).
func (s *stats) resolved(moved bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.s.Answered++
	if moved {
		s.s.AnsweredMoved++
	}
}

func (s *stats) roundTrip(seconds float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.s.RoundTrips = append(s.s.RoundTrips, seconds)
}

// refused counts a Play act refused with ActRefused, keyed as errorReason keys a failed Act.
func (s *stats) refused(refusal *studv1.ActRefused, inWindow bool) {
	name, ok := codeNames[codes.Code(refusal.GetCode())]
	if !ok {
		name = "UNKNOWN"
	}
	if reason := refusal.GetReason(); reason != "" {
		name += "/" + reason
	}
	s.actErrorKey(name, inWindow)
}

func (s *stats) latency(seconds float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.s.Latencies = append(s.s.Latencies, seconds)
}

// copy is the stats so far, sharing nothing with bots that may still be finishing.
func (s *stats) copy() *workerStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.s
	c.Latencies = append([]float64{}, s.s.Latencies...)
	c.RoundTrips = append([]float64{}, s.s.RoundTrips...)
	c.ErrorSamples = append([]string{}, s.s.ErrorSamples...)
	c.ActErrors = map[string]int{}
	for k, v := range s.s.ActErrors {
		c.ActErrors[k] = v
	}
	c.StreamErrors = map[string]int{}
	for k, v := range s.s.StreamErrors {
		c.StreamErrors[k] = v
	}
	return &c
}
