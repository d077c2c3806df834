package chatadapter

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/judgeworks/shared/proctest"
	"github.com/judgeworks/shared/systemone"
)

// testGate holds slots calls in flight, records every outcome it is told,
// and refuses a request of more than refuseOver calls (when set).
type testGate struct {
	slots      chan struct{}
	refuseOver int
	mu         sync.Mutex
	waiting    int
	told       []Outcome
}

func newTestGate(slots int) *testGate { return &testGate{slots: make(chan struct{}, slots)} }

var errRefused = errors.New("refused by the test gate")

func (g *testGate) Admit(_ context.Context, calls int) (Admission, error) {
	if g.refuseOver > 0 && calls > g.refuseOver {
		return nil, errRefused
	}
	return g, nil
}

func (g *testGate) Acquire(ctx context.Context) (func(Outcome), error) {
	g.mu.Lock()
	g.waiting++
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.waiting--
		g.mu.Unlock()
	}()
	select {
	case g.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return func(o Outcome) {
		g.mu.Lock()
		g.told = append(g.told, o)
		g.mu.Unlock()
		<-g.slots
	}, nil
}

func (g *testGate) Done() {}

func (g *testGate) outcomes() []Outcome {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]Outcome(nil), g.told...)
}

// queued is the calls waiting for a slot or holding one.
func (g *testGate) queued() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.waiting + len(g.slots)
}

// Prompts are built when a call gets its upstream slot: with 400 calls
// waiting behind 4 slots, the heap holds 4 prompts, not 400. Each prompt
// carries a 100 KB state, so building them up front (as the adapter once
// did, body and all) would hold 80 MB; the bound is a tenth of one copy
// per question.
func TestWaitingCallsHoldNoPrompts(t *testing.T) {
	release := make(chan struct{})
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, c chatCall, n int) {
		<-release
		writeLogprobs(w, top{"yes", 0.6}, top{"no", 0.4})
	})
	g := newTestGate(4)
	a := newTestAdapter(t, f, WithGate(g), WithUpstreamTimeouts(time.Minute, time.Minute))
	const questions = 400
	state := fmt.Sprintf("%q", strings.Repeat("the customer wrote again about a refund for the annual plan ", 1650))
	qs := make(map[string]systemone.Question, questions)
	for i := range questions {
		// Different questions: the same question twice is asked once.
		qs[fmt.Sprintf("q%03d", i)] = noulQ(fmt.Sprintf("Is it refund number %d?", i))
	}
	req := request(qs)
	req.State = raw(state)

	var before, during runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	done := make(chan error, 1)
	go func() {
		resp, err := a.Ask(context.Background(), req)
		if err == nil && len(resp.Answers) != questions {
			err = fmt.Errorf("%d answers", len(resp.Answers))
		}
		done <- err
	}()
	proctest.WaitFor(t, 20*time.Second, "4 calls in flight and the rest waiting", func() bool {
		return len(f.recorded()) == 4 && g.queued() == questions
	})
	runtime.GC()
	runtime.ReadMemStats(&during)
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	grown := int64(during.HeapAlloc) - int64(before.HeapAlloc)
	bound := int64(questions * len(state) / 10)
	t.Logf("heap grew %.1f MB with %d calls waiting on a %d-byte state (bound %.1f MB)", float64(grown)/1e6, questions-4, len(state), float64(bound)/1e6)
	if grown > bound {
		t.Fatalf("heap grew %d bytes with calls waiting, more than %d: waiting calls hold their prompts", grown, bound)
	}
}

// The gate admits a request's calls all at once, before any call: a
// refusal is Ask's error, unchanged, and nothing reaches the provider.
func TestGateRefusalIsReturnedBeforeAnyCall(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, c chatCall, n int) { t.Error("no call expected") })
	g := newTestGate(1)
	g.refuseOver = 3
	a := newTestAdapter(t, f, WithGate(g))
	// 45 options: 3 groups + the final call.
	_, err := a.Ask(context.Background(), request(map[string]systemone.Question{"pick": manyOptions(45)}))
	if !errors.Is(err, errRefused) {
		t.Fatalf("error %v, want the gate's refusal", err)
	}
}
