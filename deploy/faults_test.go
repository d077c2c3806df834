package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/judgeworks/deploy/harness"
	"github.com/judgeworks/shared/proctest"
	"github.com/judgeworks/shared/systemone"
)

// Fault suite: the built binaries under kill -9, a Postgres restart and a
// failing language-model provider. The interview service's own kill -9
// while the model evaluates (claim kept, answer accepted once after expiry)
// is TestKilledMidEvaluation in interview/cmd/interview/main_test.go; these
// tests cover the judge, Postgres and the provider.

// judgeProc is the judge, built from source, alone on a free port.
type judgeProc struct {
	*proctest.Proc
	url string
}

func startJudge(t *testing.T, env ...string) *judgeProc {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and starts the judge")
	}
	port, err := proctest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	env = append(proctest.BaseEnv(work), append([]string{fmt.Sprintf("JUDGE_ADDR=127.0.0.1:%d", port),
		"JUDGE_API_KEYS=" + judgeKey, "JUDGE_LLM_READOUT=probabilities"}, env...)...)
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	p := proctest.Run(t, proctest.Cmd{Name: "judge", Path: proctest.Build(t, judgePkg), Dir: work, Env: env}, url+"/healthz")
	return &judgeProc{Proc: p, url: url}
}

// judgeCall is one POST /v1/systemone: status, headers, body, time taken
// and when the answer was read, or the transport error.
type judgeCall struct {
	status  int
	header  http.Header
	body    []byte
	elapsed time.Duration
	done    time.Time
	err     error
}

func askJudge(base string, req any) judgeCall {
	return askJudgeWith(&http.Client{Timeout: 60 * time.Second}, base+"/v1/systemone", judgeKey, req)
}

func askJudgeWith(c *http.Client, url, key string, req any) judgeCall {
	b, _ := json.Marshal(req)
	hreq, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	hreq.Header.Set("Authorization", "Bearer "+key)
	hreq.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := c.Do(hreq)
	if err != nil {
		return judgeCall{err: err, elapsed: time.Since(start), done: time.Now()}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return judgeCall{status: resp.StatusCode, header: resp.Header, body: body, elapsed: time.Since(start), done: time.Now(), err: err}
}

func (c judgeCall) detail(t *testing.T) judgeError {
	t.Helper()
	var e judgeError
	if err := json.Unmarshal(c.body, &e); err != nil || e.Detail.ErrorType == "" || e.Detail.Message == "" {
		t.Fatalf("status %d body %q is not the System One error shape", c.status, c.body)
	}
	return e
}

// TestJudgeKilledMidRequest kills the judge with SIGKILL while a request is
// waiting on the model and starts it again on the same address. The
// request without retries fails; the Go client's retry gets the answer the
// judge gave before the kill, asking the model exactly once more; and the
// restarted judge answers byte for byte as before: it keeps no state to lose.
func TestJudgeKilledMidRequest(t *testing.T) {
	llm := newFakeLLM(t)
	j := startJudge(t, llmEnv(llm, "sk-fake")...)

	offline := noulRequest("local/lexical-latest")
	refOffline := askJudge(j.url, offline)
	refLLM := askJudge(j.url, noulRequest("llm-latest"))
	if refOffline.status != http.StatusOK || refLLM.status != http.StatusOK {
		t.Fatalf("reference answers: %d %s / %d %s", refOffline.status, refOffline.body, refLLM.status, refLLM.body)
	}
	var want systemone.Response
	if err := json.Unmarshal(refLLM.body, &want); err != nil {
		t.Fatal(err)
	}

	llm.set(fakeHang, 0)
	raw := make(chan judgeCall, 1)
	go func() { raw <- askJudge(j.url, noulRequest("llm-latest")) }()
	client := systemone.NewClient(systemone.WithBaseURL(j.url), systemone.WithAPIKey(judgeKey),
		// Retries for about 20 s: room for a restart on a busy machine.
		systemone.WithMaxAttempts(12), systemone.WithBackoff(300*time.Millisecond, 2*time.Second))
	type result struct {
		resp *systemone.Response
		err  error
	}
	viaClient := make(chan result, 1)
	go func() {
		var req systemone.Request
		b, _ := json.Marshal(noulRequest("llm-latest"))
		if err := json.Unmarshal(b, &req); err != nil {
			viaClient <- result{err: err}
			return
		}
		r, err := client.Ask(context.Background(), req)
		viaClient <- result{r, err}
	}()
	llm.waitEntered(t, 2)

	j.Kill()
	llm.set(fakeOK, 0)
	if c := <-raw; c.err == nil {
		t.Fatalf("request in flight at kill -9 got %d %s, want a transport error", c.status, c.body)
	}
	if err := j.Restart(); err != nil {
		t.Fatal(err)
	}
	if err := proctest.WaitOK(context.Background(), j.url+"/healthz", j.Proc); err != nil {
		t.Fatal(err)
	}

	select {
	case r := <-viaClient:
		if r.err != nil {
			t.Fatalf("Go client across the restart: %v", r.err)
		}
		if !reflect.DeepEqual(*r.resp, want) {
			t.Errorf("answer after restart %+v, want the one before the kill %+v", *r.resp, want)
		}
	case <-time.After(time.Minute):
		t.Fatal("the Go client did not finish within a minute of the restart")
	}
	if n := len(llm.chatCalls()); n != 1 {
		t.Errorf("the model was asked %d times after the kill, want exactly 1 (the client's retry)", n)
	}
	if again := askJudge(j.url, offline); again.status != http.StatusOK || !bytes.Equal(again.body, refOffline.body) {
		t.Errorf("offline answer after restart:\n%s\nbefore:\n%s", again.body, refOffline.body)
	}
}

// TestUpstreamFaults drives the judge against a provider that fails in each
// documented way (docs/adapter.md, "Upstream faults") and checks the status,
// the error body, Retry-After and how often the provider was asked.
func TestUpstreamFaults(t *testing.T) {
	const key = "sk-upstream-fault-key-4f9a2c"
	llm := newFakeLLM(t)
	// A deadline long enough for every retry (at most 0.2+0.4+0.8+1.6 s of
	// backoff), so the retry counts are exact.
	j := startJudge(t, append(llmEnv(llm, key), "JUDGE_LLM_TIMEOUT=20s")...)

	for _, tc := range []struct {
		mode       fakeMode
		status     int
		errorType  string
		calls      int    // 1 + retries
		retryMs    string // retry-after-ms; empty: no Retry-After at all
		msgHas     string
		retryAfter string
	}{
		// 500: backoff, 4 retries, then 529 with the adapter's default 2 s.
		{mode: fakeError500, status: 529, errorType: "overloaded", calls: 5, retryMs: "2000", retryAfter: "2"},
		// 429: the provider's own wait (50 ms), 4 retries, then 529 passing it on.
		{mode: fakeLimited, status: 529, errorType: "overloaded", calls: 5, retryMs: "50", retryAfter: "1"},
		// Not the asked JSON: 2 corrective retries, then 502; never a guess.
		{mode: fakeMalformed, status: 502, errorType: "upstream_invalid_output", calls: 3, msgHas: "LLM_MODEL"},
		// Bad key: no retry, 502 naming the setting, never the key.
		{mode: fakeBadKey, status: 502, errorType: "upstream_misconfigured", calls: 1, msgHas: "LLM_API_KEY"},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			llm.set(tc.mode, 0)
			c := askJudge(j.url, noulRequest("llm-latest"))
			if c.err != nil || c.status != tc.status {
				t.Fatalf("status %d (%v) %s, want %d", c.status, c.err, c.body, tc.status)
			}
			e := c.detail(t)
			if e.Detail.ErrorType != tc.errorType || !strings.Contains(e.Detail.Message, tc.msgHas) {
				t.Errorf("detail %+v, want type %s and a message naming %q", e.Detail, tc.errorType, tc.msgHas)
			}
			if got := c.header.Get("retry-after-ms"); got != tc.retryMs {
				t.Errorf("retry-after-ms %q, want %q", got, tc.retryMs)
			}
			if got := c.header.Get("Retry-After"); got != tc.retryAfter {
				t.Errorf("Retry-After %q, want %q", got, tc.retryAfter)
			}
			calls := llm.chatCalls()
			if len(calls) != tc.calls {
				t.Errorf("provider asked %d times, want %d", len(calls), tc.calls)
			}
			if tc.mode == fakeMalformed && len(calls) == tc.calls {
				// Each retry shows the model its bad reply and what was wrong.
				last := calls[len(calls)-1].Messages
				if n := len(last); n < 2 || last[n-2].Role != "assistant" || last[n-1].Role != "user" ||
					!strings.Contains(last[n-1].Content, "could not be used") {
					t.Errorf("last retry's messages end %+v, want the bad reply and a correction", last)
				}
			}
			if strings.Contains(string(c.body), key) {
				t.Errorf("the response quotes the provider key: %s", c.body)
			}
		})
	}
	if out := j.Output(); strings.Contains(out, key) {
		t.Errorf("the judge logged the provider key:\n%s", out)
	}
}

// TestUpstreamHang: a provider that never answers ends in 529 with
// Retry-After once the judge's model deadline (JUDGE_LLM_TIMEOUT) passes.
func TestUpstreamHang(t *testing.T) {
	llm := newFakeLLM(t)
	const deadline = 2 * time.Second
	j := startJudge(t, append(llmEnv(llm, "sk-fake"), "JUDGE_LLM_TIMEOUT="+deadline.String())...)
	llm.set(fakeHang, 0)
	c := askJudge(j.url, noulRequest("llm-latest"))
	if c.err != nil || c.status != 529 {
		t.Fatalf("status %d (%v) %s, want 529", c.status, c.err, c.body)
	}
	if e := c.detail(t); e.Detail.ErrorType != "overloaded" {
		t.Errorf("detail %+v", e.Detail)
	}
	if ra, err := strconv.Atoi(c.header.Get("Retry-After")); err != nil || ra < 1 {
		t.Errorf("Retry-After %q, want whole seconds ≥ 1", c.header.Get("Retry-After"))
	}
	// Not before the deadline, and well before five of it (the deadline
	// bounds the whole request, not each try): bounds a busy machine keeps.
	if c.elapsed < deadline-100*time.Millisecond || c.elapsed >= 5*deadline {
		t.Errorf("answered after %v, want at the %v deadline", c.elapsed, deadline)
	}
	t.Logf("hung provider: 529 after %v (deadline %v)", c.elapsed.Round(time.Millisecond), deadline)
}

// TestJudgeSaturated: with one call allowed in flight and one waiting, a
// third request is refused at once with 529 and Retry-After instead of
// joining an unbounded queue, and the two admitted requests still succeed.
func TestJudgeSaturated(t *testing.T) {
	llm := newFakeLLM(t)
	const upstreamDelay = 3 * time.Second
	j := startJudge(t, append(llmEnv(llm, "sk-fake"),
		"JUDGE_LLM_CONCURRENCY=1", "JUDGE_LLM_QUEUE=1", "JUDGE_LLM_TIMEOUT=30s")...)
	// One answered call first: until the queue has measured the model it
	// admits only what its free slots can start at once.
	llm.set(fakeOK, 0)
	if c := askJudge(j.url, noulRequest("llm-latest")); c.status != http.StatusOK {
		t.Fatalf("warm-up request: %d (%v) %s", c.status, c.err, c.body)
	}
	llm.set(fakeOK, upstreamDelay)

	first := make(chan judgeCall, 1)
	go func() { first <- askJudge(j.url, noulRequest("llm-latest")) }()
	llm.waitEntered(t, 1)

	// Two more at once: one takes the queue's only place, the other is refused.
	var wg sync.WaitGroup
	more := make([]judgeCall, 2)
	for i := range more {
		wg.Go(func() { more[i] = askJudge(j.url, noulRequest("llm-latest")) })
	}
	wg.Wait()
	firstCall := <-first
	if firstCall.status != http.StatusOK {
		t.Errorf("first request: %d %s", firstCall.status, firstCall.body)
	}
	var refused, queued []judgeCall
	for _, c := range more {
		switch c.status {
		case 529:
			refused = append(refused, c)
		case http.StatusOK:
			queued = append(queued, c)
		default:
			t.Errorf("unexpected answer %d (%v) %s", c.status, c.err, c.body)
		}
	}
	if len(refused) != 1 || len(queued) != 1 {
		t.Fatalf("%d refused and %d answered, want exactly one of each", len(refused), len(queued))
	}
	r := refused[0]
	if e := r.detail(t); e.Detail.ErrorType != "overloaded" || !strings.Contains(e.Detail.Message, "saturated") {
		t.Errorf("refusal %+v", e.Detail)
	}
	if r.header.Get("Retry-After") == "" {
		t.Error("refusal without Retry-After")
	}
	// The refusal did not wait for the provider: it came back while the
	// first call was still there. An order, not a time a busy machine moves.
	if f := firstCall; !r.done.Before(f.done) {
		t.Errorf("refusal answered %v after the first request, want before it: it waited for the provider", r.done.Sub(f.done))
	}
	if queued[0].elapsed < upstreamDelay {
		t.Errorf("queued request answered after %v, before the first call could have finished", queued[0].elapsed)
	}
	if n := len(llm.chatCalls()); n != 2 {
		t.Errorf("provider asked %d times, want 2: the refused request never reaches it", n)
	}
	t.Logf("saturated judge: refusal in %v; queued request answered in %v", r.elapsed.Round(time.Millisecond), queued[0].elapsed.Round(time.Millisecond))
}

// TestPostgresRestartUnderLoad stops the interview service's Postgres while
// clients keep starting and answering interviews, then starts it again.
// /readyz reports the outage and the recovery, and requests succeed again
// by themselves, from the same process.
func TestPostgresRestartUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Postgres and the services")
	}
	pg := startSuitePostgres(t, "")
	// The load scores answers through the judge faster than one key's
	// 1,200/min, and its one user starts interviews faster than the
	// per-user limits on model work allow; the limits are not what this
	// test is about.
	s := startSuiteStack(t, harness.Config{DatabaseURL: pg.URL, NoCaddy: true,
		JudgeEnv: []string{"JUDGE_RATE_LIMIT_RPM=1000000"}, InterviewEnv: []string{"AUTH_THROTTLE=off", "MODEL_LIMITS=off"}})
	pid := s.Interview.Pid()

	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	wantStatus(t, call(t, c, http.MethodPost, s.InterviewURL+"/api/auth/register", nil,
		map[string]string{"fullName": "Grace Hopper", "email": "grace@example.com", "password": "correct horse battery staple"}, nil), http.StatusCreated)

	type outcome struct {
		start time.Time
		ok    bool
		what  string
	}
	var (
		mu       sync.Mutex
		outcomes []outcome
	)
	// post returns "" on the expected status, else what came back; error
	// bodies must keep the pinned shape whatever the database does.
	post := func(path string, body any, want int, out any) string {
		b, _ := json.Marshal(body)
		resp, err := c.Post(s.InterviewURL+path, "application/json", bytes.NewReader(b))
		if err != nil {
			return err.Error()
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == want {
			if out != nil {
				_ = json.Unmarshal(raw, out)
			}
			return ""
		}
		var e struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if json.Unmarshal(raw, &e) != nil || e.Error.Code == "" {
			t.Errorf("%s: %d without the pinned error body: %q", path, resp.StatusCode, raw)
		}
		if strings.Contains(string(raw), "postgres://") || strings.Contains(string(raw), "SQLSTATE") {
			t.Errorf("%s: database details leak to the client: %s", path, raw)
		}
		return fmt.Sprintf("%d %s", resp.StatusCode, e.Error.Code)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				start := time.Now()
				var started struct {
					SessionID string `json:"sessionId"`
					Question  struct {
						ID string `json:"id"`
					} `json:"question"`
				}
				what := post("/api/interview/start", map[string]any{"candidateName": "Grace", "role": "Backend Engineer",
					"experience": "5 years", "difficulty": "medium", "totalQuestions": 2}, http.StatusCreated, &started)
				if what == "" {
					what = post("/api/interview/answer", map[string]any{"sessionId": started.SessionID,
						"questionId": started.Question.ID, "answer": "Measure first, then add an index."}, http.StatusOK, nil)
				}
				mu.Lock()
				outcomes = append(outcomes, outcome{start, what == "", what})
				mu.Unlock()
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
	defer func() { close(stop); wg.Wait() }()

	ready := func() int {
		resp, err := http.Get(s.InterviewURL + "/readyz")
		if err != nil {
			t.Fatalf("/readyz: %v", err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	waitReady := func(want bool, within time.Duration) time.Duration {
		t.Helper()
		start := time.Now()
		for time.Since(start) < within {
			if (ready() == http.StatusOK) == want {
				return time.Since(start)
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("/readyz did not become ready=%v within %v", want, within)
		return 0
	}

	// Each phase lasts until what it is for has happened, not for a fixed
	// time a busy machine could make too short.
	count := func(match func(outcome) bool) int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, o := range outcomes {
			if match(o) {
				n++
			}
		}
		return n
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no %s within a minute", what)
			}
		}
	}
	waitFor("successful flow before the outage", func() bool { return count(func(o outcome) bool { return o.ok }) > 0 })
	if st := ready(); st != http.StatusOK {
		t.Fatalf("/readyz %d before the outage", st)
	}
	pg.Stop() // fast shutdown (SIGINT): sessions are cut
	downAt := time.Now()
	notReady := waitReady(false, time.Minute)
	// The clients keep trying through the outage until one started in it
	// has failed.
	waitFor("failed flow during the outage", func() bool {
		return count(func(o outcome) bool { return !o.ok && !o.start.Before(downAt) }) > 0
	})
	if err := pg.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	upAt := time.Now()
	readyAgain := waitReady(true, time.Minute)
	recovered := time.Now()
	settled := recovered.Add(500 * time.Millisecond)
	waitFor("5 flows after recovery", func() bool {
		return count(func(o outcome) bool { return o.start.After(settled) }) >= 5
	})
	close(stop)
	wg.Wait()
	stop = make(chan struct{}) // the deferred close

	mu.Lock()
	defer mu.Unlock()
	var before, during, after, afterFailed int
	var failures []string
	for _, o := range outcomes {
		switch {
		case o.start.Before(downAt):
			before++
		case o.start.Before(upAt):
			if !o.ok {
				during++
				failures = append(failures, o.what)
			}
		case o.start.After(settled):
			after++
			if !o.ok {
				afterFailed++
				t.Errorf("request %v after /readyz recovered failed: %s", o.start.Sub(recovered), o.what)
			}
		}
	}
	if during == 0 {
		t.Error("no request failed while Postgres was down: the load did not reach the database")
	}
	if after < 5 {
		t.Errorf("only %d requests after recovery, want at least 5", after)
	}
	if s.Interview.Pid() != pid {
		t.Error("the interview process was restarted")
	}
	select {
	case <-s.Interview.Done():
		t.Fatal("the interview service exited during the outage")
	default:
	}
	t.Logf("Postgres restart: %d flows before; /readyz non-200 %v after the stop; %d failed flows during the outage (e.g. %v); "+
		"ready %v after the start; %d flows after recovery, %d failed",
		before, notReady.Round(time.Millisecond), during, failures[:min(3, len(failures))], readyAgain.Round(time.Millisecond), after, afterFailed)
}
