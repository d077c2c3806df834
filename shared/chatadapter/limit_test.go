package chatadapter

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/judgeworks/shared/fairqueue"
	"github.com/judgeworks/shared/systemone"
)

// Prompts are built when a call gets its upstream slot: with 400 calls
// queued behind 4 slots, the heap holds 4 prompts, not 400. Each prompt
// carries a 100 KB state, so building them up front (as the adapter once
// did, body and all) would hold 80 MB; the bound is a tenth of one copy
// per question.
func TestQueuedCallsHoldNoPrompts(t *testing.T) {
	release := make(chan struct{})
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, c chatCall, n int) {
		<-release
		writeLogprobs(w, top{"yes", 0.6}, top{"no", 0.4})
	})
	a := newTestAdapter(t, f, WithUpstreamConcurrency(4, 1000), WithUpstreamTimeouts(time.Minute, time.Minute))
	const questions = 400
	state := fmt.Sprintf("%q", strings.Repeat("the customer wrote again about a refund for the annual plan ", 1650))
	qs := make(map[string]systemone.Question, questions)
	for i := range questions {
		qs[fmt.Sprintf("q%03d", i)] = noulQ("Is it a refund?")
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
	waitUntil(t, "4 calls in flight and the rest queued", func() bool {
		s := a.queue.Stats()
		return len(f.recorded()) == 4 && s.InFlight == 4 && s.Waiting == questions-4
	})
	runtime.GC()
	runtime.ReadMemStats(&during)
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	grown := int64(during.HeapAlloc) - int64(before.HeapAlloc)
	bound := int64(questions * len(state) / 10)
	t.Logf("heap grew %.1f MB with %d calls queued on a %d-byte state (bound %.1f MB)", float64(grown)/1e6, questions-4, len(state), float64(bound)/1e6)
	if grown > bound {
		t.Fatalf("heap grew %d bytes with calls queued, more than %d: queued calls hold their prompts", grown, bound)
	}
}

// A request with more calls than the slots and the queue hold together is
// refused as too large before any call: waiting would never help.
func TestMoreCallsThanTheQueueHolds(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, c chatCall, n int) { t.Error("no call expected") })
	a := newTestAdapter(t, f, WithUpstreamConcurrency(1, 2))
	_, err := a.Ask(context.Background(), request(map[string]systemone.Question{"pick": manyOptions(45)}))
	if e := asError[*systemone.ValidationError](t, err); len(e.Items) != 1 || !strings.Contains(e.Items[0].Msg, "4 upstream calls") {
		// 45 options: 3 groups + the final call.
		t.Fatalf("error %+v, want one naming the request's 4 calls", e)
	}
}

// The tenant comes from the context: a tenant whose own calls fill the
// queue is refused, while another is admitted and served after at most
// one more of the first tenant's calls.
func TestTenantsAreServedInTurn(t *testing.T) {
	gate := make(chan struct{}, 100)
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, c chatCall, n int) {
		if strings.Contains(c.question(), "flood") {
			select {
			case <-gate:
			case <-r.Context().Done():
				return
			}
		}
		writeLogprobs(w, top{"yes", 0.6}, top{"no", 0.4})
	})
	a := newTestAdapter(t, f, WithUpstreamConcurrency(2, 100), WithUpstreamMaxWait(1500*time.Millisecond))
	flood, stop := context.WithCancel(fairqueue.WithTenant(context.Background(), "flood"))
	defer stop()
	qs := map[string]systemone.Question{}
	for i := range 10 {
		qs[fmt.Sprint(i)] = noulQ("flood?")
	}
	go func() { _, _ = a.Ask(flood, request(qs)) }()
	waitUntil(t, "flood's calls queued", func() bool { return a.queue.Stats().Waiting == 8 })

	// Flood's 8 waiting calls, at 0.5 s a completion (the 1 s assumed
	// before any answer, over 2 slots), put its next request 4.5 s away.
	_, err := a.Ask(flood, request(map[string]systemone.Question{"more": noulQ("flood?")}))
	if e := asError[*OverloadedError](t, err); e.RetryAfter <= 0 || !strings.Contains(e.Message, "saturated") {
		t.Fatalf("flood's second request: %+v", e)
	}

	// The light tenant has one call of flood's ahead of it (1 s): admitted.
	light := make(chan error, 1)
	go func() {
		_, err := a.Ask(fairqueue.WithTenant(context.Background(), "light"), request(map[string]systemone.Question{"l": noulQ("light?")}))
		light <- err
	}()
	waitUntil(t, "the light call queued", func() bool { return a.queue.Stats().Waiting == 9 })
	// The two flood calls in flight finish: the first freed slot is
	// flood's turn, the second the light tenant's. Behind flood's 8 in
	// FIFO order, the light request would wait for ever here.
	gate <- struct{}{}
	gate <- struct{}{}
	select {
	case err := <-light:
		if err != nil {
			t.Fatalf("light request: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the light request was not served after one flood call")
	}
	// Flood's third call took the first slot, its fourth the light
	// call's slot once it was answered: 6 of flood's calls still wait.
	if s := a.queue.Stats(); s.Waiting != 6 {
		t.Fatalf("%d flood calls waiting after the light request, want 6", s.Waiting)
	}
}
