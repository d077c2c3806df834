package deploy

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/judgeworks/deploy/harness"
	"github.com/judgeworks/shared/pgtest"
	"github.com/judgeworks/shared/tracing/otlptest"
)

// A trace the client starts passes through the real Caddy into the
// interview's span, the interview's call to the judge, the judge's span
// and its call to the model, all under the client's trace id and exported
// to the OTLP receiver; the services' log lines of the request carry it.
func TestOneTraceThroughCaddy(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Postgres, both services and Caddy")
	}
	rcv := otlptest.Start(t)
	llm := newFakeLLM(t)
	// A short batch delay: the spans arrive while the test waits.
	otel := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + rcv.URL, "OTEL_BSP_SCHEDULE_DELAY=100"}
	s := startSuiteStack(t, harness.Config{
		DatabaseURL:  pgtest.NewDatabase(t),
		JudgeEnv:     append(llmEnv(llm, "sk-fake"), otel...),
		InterviewEnv: append(llmEnv(llm, "sk-fake"), otel...),
	})
	st := &stack{base: s.URL, caddy: s.Caddy}
	c := newUser(t, st)
	var started struct {
		SessionID string `json:"sessionId"`
		Question  struct {
			ID string `json:"id"`
		} `json:"question"`
	}
	wantStatus(t, call(t, c, http.MethodPost, s.URL+"/api/interview/start", nil, map[string]any{
		"candidateName": "Ada", "role": "Backend Engineer", "experience": "3 years",
		"difficulty": "medium", "totalQuestions": 2, "followUps": 0,
	}, &started), http.StatusCreated)

	const traceID, callerSpan = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	llm.set(fakeOK, 0)
	resp := call(t, c, http.MethodPost, s.URL+"/api/interview/answer",
		http.Header{"traceparent": {"00-" + traceID + "-" + callerSpan + "-01"}},
		map[string]any{"sessionId": started.SessionID, "questionId": started.Question.ID,
			"answer": "I would use a token bucket per API key, kept in Redis so that every replica shares it, " +
				"and answer 429 with Retry-After when the bucket is empty."}, nil)
	wantStatus(t, resp, http.StatusOK)

	// The judge's call to the model is a probabilities call (a schema
	// named "probabilities"); the interview's own calls name theirs.
	var judgeCall *fakeCall
	calls := llm.chatCalls()
	for i, fc := range calls {
		if fc.Schema == "probabilities" {
			judgeCall = &calls[i]
		}
	}
	if judgeCall == nil {
		t.Fatalf("the answer was not scored through the judge's model: calls %+v", calls)
	}
	if !strings.HasPrefix(judgeCall.Traceparent, "00-"+traceID+"-") {
		t.Fatalf("the judge's model call carried traceparent %q, want the client's trace %s", judgeCall.Traceparent, traceID)
	}

	find := func(spans []otlptest.Span, service, kind, name string) *otlptest.Span {
		for i, sp := range spans {
			if sp.Service == service && sp.Kind == kind && (name == "" || sp.Name == name) {
				return &spans[i]
			}
		}
		return nil
	}
	spans := rcv.Wait(traceID, 30*time.Second, func(spans []otlptest.Span) bool {
		return find(spans, "interview", "SPAN_KIND_SERVER", "") != nil && find(spans, "judge", "SPAN_KIND_SERVER", "") != nil &&
			find(spans, "judge", "SPAN_KIND_CLIENT", "") != nil
	})
	in := find(spans, "interview", "SPAN_KIND_SERVER", "POST /api/interview/answer")
	judge := find(spans, "judge", "SPAN_KIND_SERVER", "")
	if in == nil || judge == nil {
		t.Fatalf("spans of the trace: %+v", spans)
	}
	if in.ParentID != callerSpan {
		t.Errorf("the interview's span has parent %s, want the client's span %s (Caddy passes traceparent on)", in.ParentID, callerSpan)
	}
	// The judge's span is the child of the interview's call to it, and
	// the model call of the judge's span.
	byID := map[string]otlptest.Span{}
	for _, sp := range spans {
		byID[sp.SpanID] = sp
	}
	if p := byID[judge.ParentID]; p.Service != "interview" || p.Kind != "SPAN_KIND_CLIENT" || byID[p.ParentID].SpanID != in.SpanID {
		t.Errorf("the judge's span %+v is not the child of the interview's call from its request span: %+v", *judge, spans)
	}
	model, ok := byID[judgeCall.Traceparent[36:52]]
	if !ok || model.Service != "judge" || model.Kind != "SPAN_KIND_CLIENT" || !descends(byID, model, judge.SpanID) {
		t.Errorf("the model call's span %+v does not descend from the judge's span %s", model, judge.SpanID)
	}

	// The access logs of both services name the trace. The judge writes
	// its log in batches (docs/judge.md): its line may come
	// a moment after the spans.
	for _, p := range []struct {
		name   string
		output func() string
	}{{"interview", s.Interview.Output}, {"judge", s.Judge.Output}} {
		found := false
		for deadline := time.Now().Add(10 * time.Second); !found && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			for _, line := range strings.Split(p.output(), "\n") {
				var l struct {
					Msg     string `json:"msg"`
					TraceID string `json:"trace_id"`
					SpanID  string `json:"span_id"`
				}
				if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "request" && l.TraceID == traceID && l.SpanID != "" {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("no access log line of the %s carries trace_id %s", p.name, traceID)
		}
	}
}

// descends reports whether span s has an ancestor with id among spans.
func descends(byID map[string]otlptest.Span, s otlptest.Span, id string) bool {
	for range len(byID) {
		if s.ParentID == id {
			return true
		}
		p, ok := byID[s.ParentID]
		if !ok {
			return false
		}
		s = p
	}
	return false
}
