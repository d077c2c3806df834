package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/fairqueue"
	"github.com/judgeworks/judge/internal/fault"
	"github.com/judgeworks/shared/chatadapter"
	"github.com/judgeworks/shared/systemone"
)

// A request with more calls than the slots and the queue hold together is
// refused as too large: waiting would never help.
func TestMoreCallsThanTheQueueHolds(t *testing.T) {
	s := NewSlots(fairqueue.Config{Slots: 1, Queue: 2, MaxWait: time.Hour}, "")
	_, err := s.Admit(context.Background(), 4)
	var ve *systemone.ValidationError
	if !errors.As(err, &ve) || len(ve.Items) != 1 || !strings.Contains(ve.Items[0].Msg, "4 upstream calls") {
		t.Fatalf("error %v, want one validation item naming the request's 4 calls", err)
	}
}

// A refusal is the judge's Overloaded, at once, with a wait and the
// upstream's name; the calls already admitted are not disturbed.
func TestFullQueueIsImmediateOverload(t *testing.T) {
	s := NewSlots(fairqueue.Config{Slots: 1, Queue: 1, MaxWait: time.Hour}, "the test upstream")
	first, err := s.Admit(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = s.Admit(context.Background(), 1)
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Code != fault.Overloaded || fe.RetryAfter <= 0 ||
		!strings.Contains(fe.Message, "saturated") || !strings.Contains(fe.Message, "the test upstream") {
		t.Fatalf("error %v, want Overloaded naming the upstream, with a wait", err)
	}
	// Waiting would mean until the test ends: a generous bound tells.
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("refused after %v; a full queue must refuse at once", d)
	}
	for range 2 {
		if _, err := Call(context.Background(), first, func(context.Context) (int, error) { return 0, nil },
			func(int, error) systemone.Usage { return systemone.Usage{} }); err != nil {
			t.Fatalf("a call of the admitted request: %v", err)
		}
	}
	first.Done()
}

// As the chat adapter's gate, the slots hear each call's outcome: a 429
// halves the limit, an answer raises it by one.
func TestGateOutcomesMoveTheLimit(t *testing.T) {
	s := NewSlots(fairqueue.Config{Slots: 8, Queue: 10, MaxWait: time.Hour}, "")
	admitted, err := s.Gate().Admit(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer admitted.Done()
	for _, o := range []chatadapter.Outcome{chatadapter.Throttled, chatadapter.Answered} {
		release, err := admitted.Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		release(o)
	}
	if limit := s.Stats().Limit; limit != 5 {
		t.Fatalf("limit %d, want 5 (8 halved by the 429, then one more for the answer)", limit)
	}
}

// The tenant comes from the context: a tenant whose own calls fill the
// queue is refused while another tenant is admitted beside it.
func TestTenantsAreAdmittedApart(t *testing.T) {
	s := NewSlots(fairqueue.Config{Slots: 2, Queue: 100, MaxWait: 1500 * time.Millisecond}, "")
	// One answered call of about a second first: a queue that has measured
	// no call admits only what its free slots can start at once.
	warm, err := s.Admit(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	slot, err := warm.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	slot.Release(fairqueue.Answered)
	warm.Done()
	flood := fairqueue.WithTenant(context.Background(), "flood")
	// 10 calls behind 2 slots, at the second measured per call: flood's
	// next request is seconds away.
	first, err := s.Admit(flood, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Done()
	if _, err := s.Admit(flood, 1); fault.CodeOf(err) != fault.Overloaded {
		t.Fatalf("flood's second request: %v, want Overloaded", err)
	}
	light, err := s.Admit(fairqueue.WithTenant(context.Background(), "light"), 1)
	if err != nil {
		t.Fatalf("the light tenant beside the flood: %v", err)
	}
	light.Done()
}
