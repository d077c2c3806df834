package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/auth"
	"github.com/judgeworks/judge/internal/engine"
	"github.com/judgeworks/judge/internal/engine/chat"
	"github.com/judgeworks/judge/internal/fairqueue"
	"github.com/judgeworks/judge/internal/metrics"
	"github.com/judgeworks/judge/internal/ratelimit"
	"github.com/judgeworks/judge/internal/registry"
	"github.com/judgeworks/shared/chatadapter"
	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/tokens"
)

// The tests here run the judge's HTTP layer with the real chat adapter
// against a local model speaking the OpenAI chat-completions wire format,
// and check the upstream queue's rules as a client sees them: fairness
// between keys, quick shedding, and the token charge before any call.

// chatModel is a fake OpenAI-compatible chat endpoint whose every call
// takes delay (less when the caller hangs up) and answers with top
// logprobs that hold a label of every question type. It keeps when each
// call arrived.
type chatModel struct {
	srv   *httptest.Server
	calls atomic.Int64

	mu      sync.Mutex
	arrived []time.Time
}

// arrivals are the times calls arrived at or after since.
func (m *chatModel) arrivals(since time.Time) []time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []time.Time
	for _, a := range m.arrived {
		if !a.Before(since) {
			out = append(out, a)
		}
	}
	return out
}

var chatReply = func() []byte {
	lp := func(tok string, p float64) map[string]any {
		return map[string]any{"token": tok, "logprob": math.Log(p), "bytes": []byte(tok)}
	}
	head := lp("yes", 0.4)
	head["top_logprobs"] = []any{lp("yes", 0.4), lp("A", 0.3), lp("no", 0.2), lp("B", 0.1)}
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "fake-2025",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "length",
			"message":  map[string]any{"role": "assistant", "content": "yes"},
			"logprobs": map[string]any{"content": []any{head}}}},
		"usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 1, "total_tokens": 101},
	})
	return b
}()

func newChatModel(t *testing.T, delay time.Duration) *chatModel {
	t.Helper()
	m := &chatModel{}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		m.calls.Add(1)
		m.mu.Lock()
		m.arrived = append(m.arrived, time.Now())
		m.mu.Unlock()
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(chatReply)
	}))
	t.Cleanup(m.srv.Close)
	return m
}

// llmJudge serves the chat engine over model as llm-latest to the keys
// key1…keyN (ids 1…N), with slots upstream calls in flight (0: the
// default).
func llmJudge(t *testing.T, model *chatModel, keys int, limits ratelimit.Settings, maxQuestions, slots int) *httptest.Server {
	t.Helper()
	if slots == 0 {
		slots = chat.DefaultConcurrency
	}
	a, err := chat.New(engine.NewSlots(fairqueue.Config{Slots: slots, Queue: chat.DefaultQueue, MaxWait: chat.DefaultMaxWait}, ""),
		chatadapter.WithProvider(model.srv.URL+"/v1", "test-key", "fake"),
		chatadapter.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, keys)
	for i := range names {
		names[i] = fmt.Sprintf("key%d", i+1)
	}
	ks, err := auth.ParseBearerKeys(strings.Join(names, ","))
	if err != nil {
		t.Fatal(err)
	}
	limits.IDs = keyIDs(ks)
	count := tokens.Default()
	reg := registry.New()
	if err := reg.Add(registry.Model{Name: "llm-1.0", Aliases: []string{"llm-latest"}, Backend: a, NameFromBackend: true}); err != nil {
		t.Fatal(err)
	}
	e := New(slog.New(slog.DiscardHandler), Deps{
		Keys: ks, Limiter: ratelimit.New(context.Background(), limits), Registry: reg, Metrics: metrics.New(),
		Tokens: count, MaxQuestions: maxQuestions,
	})
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return srv
}

// unlimited are rate limits no test here reaches.
var unlimited = ratelimit.Settings{RPM: 1_000_000_000, TPM: 1_000_000_000}

// nouls is a request for llm-latest of n noul questions.
func nouls(n int) string {
	var b strings.Builder
	b.WriteString(`{"model": "llm-latest", "state": "My invoice is wrong and I am furious.", "questions": {`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"q%03d": {"type": "noul", "instructions": "Is the customer angry? (%d)"}`, i, i)
	}
	b.WriteString("}}")
	return b.String()
}

// result is one request as the client saw it.
type result struct {
	status  int
	took    time.Duration
	answers int
	retryMS int
}

func send(ctx context.Context, client *http.Client, url, key, body string) (result, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/systemone", strings.NewReader(body))
	if err != nil {
		return result{}, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return result{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	r := result{status: resp.StatusCode, took: time.Since(start)}
	if err != nil {
		return r, err
	}
	if r.status == http.StatusOK {
		var out systemone.Response
		if err := json.Unmarshal(raw, &out); err != nil {
			return r, err
		}
		r.answers = len(out.Answers)
	}
	r.retryMS, _ = strconv.Atoi(resp.Header.Get("retry-after-ms"))
	return r, nil
}

func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

// TestTenantIsTheBearerKey: the API names the caller's key as the tenant
// of the upstream queues.
func TestTenantIsTheBearerKey(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	backend := askFunc(func(ctx context.Context, req systemone.Request) (*systemone.Response, error) {
		mu.Lock()
		seen = append(seen, fairqueue.Tenant(ctx))
		mu.Unlock()
		return (&planned{}).Ask(ctx, req)
	})
	srv, _ := judge(t, backend, ratelimit.Settings{RPM: 100, TPM: 100_000}, 0)
	for _, key := range []string{"k", "other", "k"} {
		if a := post(t, srv.URL, key, body); a.status != http.StatusOK {
			t.Fatalf("%s: %d %s", key, a.status, a.body)
		}
	}
	ks, _ := auth.ParseBearerKeys("k,other")
	k, other := ks.All()[0].ID, ks.All()[1].ID
	if got, want := strings.Join(seen, ","), k+","+other+","+k; got != want {
		t.Fatalf("tenants %s, want %s", got, want)
	}
}

type askFunc func(context.Context, systemone.Request) (*systemone.Response, error)

func (f askFunc) Ask(ctx context.Context, req systemone.Request) (*systemone.Response, error) {
	return f(ctx, req)
}

// TestFairShareBetweenKeys: one key floods with 100-question requests from
// 8 workers against a model that takes 1 s a call, on 16 upstream slots;
// another key's 1-question requests meanwhile are never refused, and each
// finishes within 10 s (it needs a slot's turn, at most one call's time,
// plus its own call: 2 s; the bound leaves room for a busy machine, and is
// still far below the minute the flood's backlog would take in turn). The flood, asking far more than the slots serve, is shed.
func TestFairShareBetweenKeys(t *testing.T) {
	if testing.Short() {
		t.Skip("a 10 s flood")
	}
	model := newChatModel(t, time.Second)
	srv := llmJudge(t, model, 2, unlimited, 0, 16)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	defer client.CloseIdleConnections()

	const window = 10 * time.Second
	ctx, stop := context.WithTimeout(context.Background(), window)
	defer stop()
	var (
		mu    sync.Mutex
		flood = map[int]int{}
		wg    sync.WaitGroup
	)
	for range 8 {
		wg.Go(func() {
			for ctx.Err() == nil {
				r, err := send(ctx, client, srv.URL, "key1", nouls(100))
				if err != nil {
					return // the window closed mid-request
				}
				mu.Lock()
				flood[r.status]++
				mu.Unlock()
				if r.status == http.StatusOK && r.answers != 100 {
					t.Errorf("flood: %d answers of 100", r.answers)
				}
				if r.status == 529 {
					// As a client honouring Retry-After would, within reason.
					select {
					case <-ctx.Done():
					case <-time.After(min(time.Duration(r.retryMS)*time.Millisecond, time.Second)):
					}
				}
			}
		})
	}

	// The light key starts once the flood has filled the slots.
	time.Sleep(1500 * time.Millisecond)
	var light []time.Duration
	for ctx.Err() == nil && time.Until(deadlineOf(ctx)) > 2*time.Second {
		r, err := send(context.Background(), client, srv.URL, "key2", nouls(1))
		if err != nil {
			t.Fatal(err)
		}
		if r.status != http.StatusOK || r.answers != 1 {
			t.Fatalf("light key: status %d with %d answers after %v, want 200", r.status, r.answers, r.took)
		}
		if r.took > 10*time.Second {
			t.Errorf("light key waited %v, more than 10 s", r.took)
		}
		light = append(light, r.took)
	}
	stop()
	wg.Wait()
	t.Logf("light key: %d requests, p50 %v, p99 %v, max %v; flood statuses %v; model calls %d",
		len(light), percentile(light, 0.5), percentile(light, 0.99), percentile(light, 1), flood, model.calls.Load())
	if len(light) < 2 {
		t.Fatalf("only %d light requests in the window", len(light))
	}
	for status := range flood {
		if status != http.StatusOK && status != 529 {
			t.Errorf("flood got status %d (%v)", status, flood)
		}
	}
	if flood[529] == 0 {
		t.Errorf("the flood was never shed (%v): it did not ask for more than its share", flood)
	}
}

func deadlineOf(ctx context.Context) time.Time {
	d, _ := ctx.Deadline()
	return d
}

// TestShedsAtOnce: 300 concurrent 20-question requests over 10 keys
// against a model that takes 5 s a call, on 64 upstream slots. What the
// slots can start within JUDGE_LLM_MAX_WAIT is admitted and answered in
// full; the rest is refused with 529 and Retry-After at once: every 529
// comes back before any upstream call could have (5 s, far above the
// milliseconds a refusal takes, so that a busy machine cannot move it past
// the bound), and no refused
// request made a call (the model saw 20 calls per answered request).
func TestShedsAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("a 5 s model answering in waves")
	}
	model := newChatModel(t, 5*time.Second)
	srv := llmJudge(t, model, 10, unlimited, 0, 64)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 300}}
	defer client.CloseIdleConnections()

	const requests = 300
	results := make([]result, requests)
	errs := make([]error, requests)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range requests {
		wg.Go(func() {
			<-start
			results[i], errs[i] = send(context.Background(), client, srv.URL, fmt.Sprintf("key%d", 1+i%10), nouls(20))
		})
	}
	close(start)
	wg.Wait()

	var ok, shed int
	var shedTook, okTook []time.Duration
	for i, r := range results {
		if errs[i] != nil {
			t.Fatalf("request %d: %v", i, errs[i])
		}
		switch r.status {
		case http.StatusOK:
			ok++
			okTook = append(okTook, r.took)
			if r.answers != 20 {
				t.Errorf("request %d: 200 with %d answers of 20", i, r.answers)
			}
		case 529:
			shed++
			shedTook = append(shedTook, r.took)
			if r.retryMS <= 0 {
				t.Errorf("request %d: 529 without retry-after-ms", i)
			}
		default:
			t.Errorf("request %d: status %d", i, r.status)
		}
	}
	// An answered request's slot wait is its time beyond the model's 5 s
	// (the judge's own work is milliseconds); the limit is the default
	// JUDGE_LLM_MAX_WAIT.
	slotWait := func(d time.Duration) time.Duration { return max(0, d-5*time.Second) }
	t.Logf("%d answered (p50 %v, max %v; slot wait p50 %v, max %v, limit %v), %d shed (p50 %v, p99 %v, max %v); model calls %d",
		ok, percentile(okTook, 0.5), percentile(okTook, 1),
		slotWait(percentile(okTook, 0.5)), slotWait(percentile(okTook, 1)), chat.DefaultMaxWait, shed,
		percentile(shedTook, 0.5), percentile(shedTook, 0.99), percentile(shedTook, 1), model.calls.Load())
	if ok == 0 || shed == 0 {
		t.Fatalf("%d answered and %d shed: want both", ok, shed)
	}
	// Admitted on a cold queue, they start at once: their wait stays
	// within the limit, with 3 s for a busy machine (it was 15 s).
	if w := slotWait(percentile(okTook, 1)); w > chat.DefaultMaxWait+3*time.Second {
		t.Errorf("an admitted request waited %v for slots, the limit is %v", w, chat.DefaultMaxWait)
	}
	if slowest := percentile(shedTook, 1); slowest >= 5*time.Second {
		t.Errorf("a 529 took %v: it waited as long as an upstream call", slowest)
	}
	if calls := model.calls.Load(); calls != int64(20*ok) {
		t.Errorf("the model saw %d calls for %d answered requests of 20 questions: refused requests made calls", calls, ok)
	}
}

// TestWarmQueueStartsWithinMaxWait: a first burst of 40 one-question
// requests on 16 slots against a model that takes 10 s a call measures the
// call time; once it has finished, a second burst of 40 arrives. Its
// admitted requests' calls all reach the model within JUDGE_LLM_MAX_WAIT
// of the burst (with 3 s for a busy machine): admission counts the 16
// calls just started as finishing together, 10 s from now. Estimated from
// the rate of completions (a slot every 0.6 s), 4 more were admitted and
// waited 10 s for theirs. The rest get 529 well before a call could have
// answered.
func TestWarmQueueStartsWithinMaxWait(t *testing.T) {
	if testing.Short() {
		t.Skip("two bursts against a 10 s model")
	}
	const delay = 10 * time.Second
	model := newChatModel(t, delay)
	srv := llmJudge(t, model, 40, unlimited, 0, 16)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 40}}
	defer client.CloseIdleConnections()

	burst := func() ([]result, time.Time) {
		results := make([]result, 40)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range results {
			wg.Go(func() {
				<-start
				var err error
				if results[i], err = send(context.Background(), client, srv.URL, fmt.Sprintf("key%d", i+1), nouls(1)); err != nil {
					t.Errorf("request %d: %v", i, err)
				}
			})
		}
		began := time.Now()
		close(start)
		wg.Wait()
		return results, began
	}
	burst()
	results, began := burst()

	var ok, shed int
	var shedTook []time.Duration
	for i, r := range results {
		switch r.status {
		case http.StatusOK:
			ok++
			if r.answers != 1 {
				t.Errorf("request %d: 200 with %d answers", i, r.answers)
			}
		case 529:
			shed++
			shedTook = append(shedTook, r.took)
		default:
			t.Errorf("request %d: status %d", i, r.status)
		}
	}
	calls := model.arrivals(began)
	var latest time.Duration
	for _, a := range calls {
		latest = max(latest, a.Sub(began))
	}
	t.Logf("second burst: %d answered, their calls reached the model at most %v after the burst (limit %v); %d shed (p50 %v, max %v)",
		ok, latest.Round(time.Millisecond), chat.DefaultMaxWait, shed, percentile(shedTook, 0.5), percentile(shedTook, 1))
	if ok == 0 || shed == 0 {
		t.Fatalf("%d answered and %d shed: want both", ok, shed)
	}
	if len(calls) != ok {
		t.Errorf("the model saw %d calls for %d answered one-question requests", len(calls), ok)
	}
	if latest > chat.DefaultMaxWait+3*time.Second {
		t.Errorf("an admitted request's call started %v after the burst, the limit is %v", latest, chat.DefaultMaxWait)
	}
	if slowest := percentile(shedTook, 1); slowest >= delay/2 {
		t.Errorf("a 529 took %v: refusals must not wait for upstream calls", slowest)
	}
}

// TestManyQuestionsNeverReachTheModel: the 4,300-question body about a
// 31,900-token state is refused before any upstream call: for its
// question count with the default JUDGE_MAX_QUESTIONS, and with a higher
// one by the token budget, which is charged every planned call's prompt
// (4,300 × the state, over a minute's 15 million). Each refusal allocates
// less than 50 MB.
func TestManyQuestionsNeverReachTheModel(t *testing.T) {
	count := tokens.Default()
	words := strings.Fields("the customer wrote again about a refund for the annual plan because the invoice was charged twice")
	var state strings.Builder
	for i := 0; count.Count(state.String()) < 31_900; {
		for range 20 {
			state.WriteString(words[i%len(words)] + " ")
			i++
		}
	}
	stateJSON, _ := json.Marshal(state.String())
	reqBody := strings.ReplaceAll(questionsBody(4300, string(stateJSON)), `"m-latest"`, `"llm-latest"`)

	model := newChatModel(t, 0)
	limits := ratelimit.Settings{RPM: 1000, TPM: 15_000_000}
	for _, tt := range []struct {
		maxQuestions int
		want         string
	}{{0, `"loc":["body","questions"]`}, {5000, `"error_type":"tokens_exceeded"`}} {
		srv := llmJudge(t, model, 1, limits, tt.maxQuestions, 0)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		a := post(t, srv.URL, "key1", reqBody)
		runtime.ReadMemStats(&after)
		allocated := after.TotalAlloc - before.TotalAlloc
		t.Logf("JUDGE_MAX_QUESTIONS %d: %d with %.1f MB allocated: %.200s", tt.maxQuestions, a.status, float64(allocated)/1e6, a.body)
		if a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, tt.want) {
			t.Errorf("JUDGE_MAX_QUESTIONS %d: %d %.300s, want 422 with %s", tt.maxQuestions, a.status, a.body, tt.want)
		}
		if tt.maxQuestions > 0 {
			// The charge named is the plan: every call carries the state.
			var needs int
			_, rest, _ := strings.Cut(a.body, "needs ")
			if _, err := fmt.Sscanf(rest, "%d", &needs); err != nil || needs < 4300*31_900 {
				t.Errorf("the refusal names %d tokens (%v), want at least 4,300 × 31,900", needs, err)
			}
		}
		if allocated > 50<<20 {
			t.Errorf("JUDGE_MAX_QUESTIONS %d: refusing allocated %.1f MB, want under 50 MB", tt.maxQuestions, float64(allocated)/1e6)
		}
	}
	if n := model.calls.Load(); n != 0 {
		t.Fatalf("the model saw %d calls", n)
	}
}

func (askFunc) PlannedInputTokens(_ systemone.Request, tokens int) int { return tokens }
