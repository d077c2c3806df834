package main

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/judgeworks/interview/internal/judgetest"
	"github.com/judgeworks/interview/internal/scorer"
)

// TestNoSecretInLogs runs the binary with known secrets, drives every kind
// of request through it (sign-ups, wrong and right passwords, answers scored
// by the judge, a failing judge, a language model that rejects its key and
// echoes it back), then reads every log line the process wrote: none may
// hold a secret, a key, a password or a session token.
func TestNoSecretInLogs(t *testing.T) {
	const (
		jwtSecret = "jwt-secret-7f3a9c1e5b2d4f6a8c0e2b4d6f8a0c2e"
		llmKey    = "sk-llm-key-5e8d2c7b1a9f"
		judgeKey  = "judge-key-3c6f9b2e8a1d"
		password  = "correct horse battery staple"
		wrongPass = "tr0ub4dor&3-wrong"
	)
	cs := &chatServer{entered: make(chan struct{})}
	llm := httptest.NewServer(cs)
	defer llm.Close()
	judge := judgetest.New(judgeKey)
	defer judge.Close()
	tech := []float64{0, 0, 0, 0, 0, 0.5, 0.5, 0, 0, 0}
	judge.SetProbabilities(scorer.TechnicalQuestion, tech)

	s := newService(t, "JWT_SECRET="+jwtSecret, "LLM_BASE_URL="+llm.URL+"/v1", "LLM_API_KEY="+llmKey, "LLM_MODEL=test-model",
		"JUDGE_URL="+judge.URL, "JUDGE_API_KEY="+judgeKey)
	s.start()

	s.must("POST", "/api/auth/register", map[string]string{"fullName": "Log Reader", "email": "logs@example.com", "password": password}, 201)
	s.must("POST", "/api/auth/logout", nil, 204)
	s.must("POST", "/api/auth/login", map[string]string{"email": "logs@example.com", "password": wrongPass}, 401)
	s.must("POST", "/api/auth/login", map[string]string{"email": "nobody@example.com", "password": wrongPass}, 401)
	s.must("POST", "/api/auth/register", map[string]string{"fullName": "Dup", "email": "logs@example.com", "password": password}, 409)
	s.must("POST", "/api/auth/login", map[string]string{"email": "logs@example.com", "password": password}, 200)
	s.must("GET", "/api/auth/me", nil, 200)
	st := s.must("POST", "/api/interview/start", map[string]any{"candidateName": "Log Reader", "role": "Backend engineer",
		"experience": "3 years", "difficulty": "easy", "totalQuestions": 3}, 201)
	sid := st["sessionId"].(string)
	qid := st["question"].(map[string]any)["id"].(string)

	// Scored by the judge through the binary's wiring.
	a := s.must("POST", "/api/interview/answer", map[string]string{"sessionId": sid, "questionId": qid, "answer": "A token bucket per key."}, 200)
	ev := a["evaluation"].(map[string]any)
	if int(ev["technicalAccuracy"].(float64)) != judgetest.Expected(tech) || ev["feedback"] != "Solid on token buckets." {
		t.Fatalf("evaluation %v: want the judge's technical accuracy %d and the model's prose", ev, judgetest.Expected(tech))
	}
	qid = a["nextQuestion"].(map[string]any)["id"].(string)
	answer := map[string]string{"sessionId": sid, "questionId": qid, "answer": "Idempotency keys stored with the result."}
	judge.Fail(http.StatusInternalServerError)
	s.must("POST", "/api/interview/answer", answer, 502)
	judge.Fail(0)
	cs.mu.Lock()
	cs.failStatus = http.StatusUnauthorized
	cs.mu.Unlock()
	s.must("POST", "/api/interview/answer", answer, 502)
	s.must("POST", "/api/interview/start", map[string]any{"candidateName": "X", "role": "Y", "experience": "Z", "difficulty": "easy", "totalQuestions": 1}, 502)

	u, _ := url.Parse("http://" + s.addr)
	var session string
	for _, c := range s.http.Jar.Cookies(u) {
		if c.Name == "session" {
			session = c.Value
		}
	}
	s.must("POST", "/api/auth/logout", nil, 204)

	// The secrets were really in play.
	cs.mu.Lock()
	sentLLM := cs.auth
	cs.mu.Unlock()
	if session == "" || sentLLM != "Bearer "+llmKey || len(judge.Requests()) < 2 {
		t.Fatalf("setup: session %q, model saw %q, judge saw %d requests", session, sentLLM, len(judge.Requests()))
	}
	logs := s.proc.Output()
	if strings.Count(logs, "\n") < 15 || !strings.Contains(logs, `"status":502`) || !strings.Contains(logs, "request failed") {
		t.Fatalf("too little was logged for the scan to mean anything (%d lines; the end of the log follows)", strings.Count(logs, "\n"))
	}
	secrets := map[string]string{
		"JWT secret": jwtSecret, "LLM key": llmKey, "judge key": judgeKey, "password": password,
		"wrong password": wrongPass, "session token": session, "session token signature": session[strings.LastIndex(session, ".")+1:],
	}
	for line := range strings.SplitSeq(logs, "\n") {
		for name, v := range secrets {
			if strings.Contains(line, v) {
				t.Errorf("log line holds the %s: %s", name, line)
			}
		}
		if strings.Contains(strings.ToLower(line), "bearer ") {
			t.Errorf("log line holds a bearer header: %s", line)
		}
	}
}
