package llm

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/shared/chatmodel"
)

// Every call asks for at most the tokens its schema's longest valid reply
// needs, and a valid reply of each kind fits under its call's cap.
func TestEveryCallCapsItsOutput(t *testing.T) {
	cs := &chatServer{replies: []string{goodOpening, goodEvaluation, goodQuestion, goodSummary, `{"ask":false,"question":""}`, `{"requirements":["Go"]}`}}
	iv := newInterviewer(t, cs)
	ctx := context.Background()
	q := interview.Question{ID: "q1", Text: "How would you design a rate limiter for an API?"}
	done := []interview.Result{{Question: q, Answer: "Use a token bucket per key.", Evaluation: interview.Evaluation{Score: 70}}}
	jd := setup
	jd.JobDescription = "We build APIs in Go."
	calls := []func() error{
		func() error { _, err := iv.Open(ctx, setup); return err },
		func() error { _, err := iv.Evaluate(ctx, setup, q, nil, "Use a token bucket per key."); return err },
		func() error { _, err := iv.Next(ctx, setup, done); return err },
		func() error { _, err := iv.Summarize(ctx, setup, done); return err },
		func() error { _, _, err := iv.FollowUp(ctx, setup, done); return err },
		func() error { _, err := iv.Requirements(ctx, jd); return err },
	}
	for _, call := range calls {
		if err := call(); err != nil {
			t.Fatal(err)
		}
	}
	reqs := cs.requests()
	if len(reqs) != len(replyRunes) {
		t.Fatalf("%d requests for %d kinds of call", len(reqs), len(replyRunes))
	}
	for _, body := range reqs {
		name := body["response_format"].(map[string]any)["json_schema"].(map[string]any)["name"].(string)
		got, ok := body["max_tokens"].(float64)
		if !ok || int64(got) != maxTokens(name) {
			t.Errorf("%s: max_tokens %v, want %d", name, body["max_tokens"], maxTokens(name))
		}
		// Generous for any reply, small next to what a model can write.
		if got < 500 || got > 16000 {
			t.Errorf("%s: max_tokens %v outside 500..16000", name, got)
		}
	}
}

// A reply far past chatmodel.MaxReplyBytes is refused while it is read:
// the service never holds more than the cap of it.
func TestEnormousReplyIsRefused(t *testing.T) {
	const size = 256 << 20
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		chunk := []byte(strings.Repeat("x", 64<<10))
		if _, err := w.Write([]byte(`{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"`)); err != nil {
			return
		}
		for sent := 0; sent < size; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return // the client stopped reading
			}
		}
		_, _ = w.Write([]byte(`"}}]}`))
	}))
	t.Cleanup(srv.Close)
	client, err := chatmodel.NewClient(chatmodel.Settings{BaseURL: srv.URL + "/v1", APIKey: "test-key", Model: "test-model"})
	if err != nil {
		t.Fatal(err)
	}
	iv := New(client, "test-model")

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = iv.Open(context.Background(), setup)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, chatmodel.ErrReplyTooLarge) {
		t.Fatalf("err %v, want chatmodel.ErrReplyTooLarge", err)
	}
	if !strings.Contains(err.Error(), "larger than") {
		t.Errorf("error %q does not say what went wrong", err)
	}
	// Reading the whole reply allocates its 256 MiB and more; reading up to
	// the cap, a few times the cap's 8 MiB.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Fatalf("reading the reply allocated %d MiB", grew>>20)
	}
}

// A huge malformed reply is quoted back in the corrective retry as a
// short excerpt, not whole.
func TestRetryQuotesAnExcerpt(t *testing.T) {
	bad := `{"welcome":"` + strings.Repeat("very long ", 200_000) // 2 MB, unterminated
	cs := &chatServer{replies: []string{bad, goodOpening}}
	iv := newInterviewer(t, cs)
	if _, err := iv.Open(context.Background(), setup); err != nil {
		t.Fatal(err)
	}
	reqs := cs.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	cs.mu.Lock()
	first, retry := cs.sizes[0], cs.sizes[1]
	cs.mu.Unlock()
	if retry-first > 4096 {
		t.Fatalf("the retry is %d bytes longer than the first call: the bad reply was sent back whole", retry-first)
	}
	roles, texts := messages(t, reqs[1])
	quoted := texts[len(texts)-2]
	if roles[len(roles)-2] != "assistant" || !strings.HasPrefix(quoted, `{"welcome":"very long`) || !strings.HasSuffix(quoted, "…") {
		t.Fatalf("the retry does not quote the start of the bad reply: %q", quoted)
	}
}
