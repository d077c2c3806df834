// Package judgetest is a stand-in judge for tests: an HTTP server speaking
// the System One API that decodes requests with the shared codec, checks the
// bearer key, and answers score questions with probabilities the test
// chose, or fails the way the test asks.
package judgetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/judgeworks/shared/systemone"
)

// Server is the stand-in judge. Its URL is the base URL for the client.
type Server struct {
	*httptest.Server
	key string

	mu       sync.Mutex
	probs    map[string][]float64
	status   int
	delay    time.Duration
	requests []systemone.Request
}

// New starts a judge accepting key. Close it when done.
func New(key string) *Server {
	s := &Server{key: key, probs: map[string][]float64{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// SystemOneClient returns a client of s with its key that retries once, after a
// millisecond or so: what the service's client does, quicker.
func (s *Server) SystemOneClient() *systemone.Client {
	return systemone.NewClient(systemone.WithBaseURL(s.URL), systemone.WithAPIKey(s.key),
		systemone.WithMaxAttempts(2), systemone.WithBackoff(time.Millisecond, 5*time.Millisecond), systemone.WithMaxRetryWait(10*time.Millisecond))
}

// SetProbabilities makes the judge answer the score question name with p,
// one probability per level, lowest first. Unset questions get a uniform
// answer.
func (s *Server) SetProbabilities(name string, p []float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.probs[name] = append([]float64(nil), p...)
}

// Fail makes every request answer status (with the System One error body);
// 0 answers normally again.
func (s *Server) Fail(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status = status
}

// Delay holds every request for d before answering (a hanging judge when d
// outlasts the client's deadline).
func (s *Server) Delay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// Requests returns the well-formed requests received so far.
func (s *Server) Requests() []systemone.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]systemone.Request(nil), s.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/systemone" {
		writeError(w, http.StatusNotFound, "not_found", "no such endpoint")
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+s.key {
		writeError(w, http.StatusUnauthorized, "authentication_error", "missing or unknown key")
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "unreadable body")
		return
	}
	req, err := systemone.DecodeRequest(body)
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, "validation_error", err.Error())
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	status, delay := s.status, s.delay
	probs := make(map[string][]float64, len(s.probs))
	for k, v := range s.probs {
		probs[k] = v
	}
	s.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	if status != 0 {
		if status == http.StatusTooManyRequests || status == 529 {
			w.Header().Set("Retry-After", "1")
		}
		writeError(w, status, "api_error", "the stand-in judge was told to fail")
		return
	}
	resp := systemone.Response{Model: req.Model + "-test", Answers: map[string]systemone.Answer{}}
	for name, q := range req.Questions {
		if q.Type != systemone.TypeScore || len(q.Levels) < systemone.MinLevels || len(q.Levels) > systemone.MaxLevels {
			writeError(w, http.StatusUnprocessableEntity, "validation_error",
				fmt.Sprintf("question %s: this stand-in answers score questions of %d to %d levels", name, systemone.MinLevels, systemone.MaxLevels))
			return
		}
		p, ok := probs[name]
		if !ok {
			p = make([]float64, len(q.Levels))
			for i := range p {
				p[i] = 1
			}
		}
		a, err := systemone.BuildAnswer(q, p)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "api_error", err.Error())
			return
		}
		resp.Answers[name] = a
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

func writeError(w http.ResponseWriter, status int, kind, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"detail": map[string]string{"error_type": kind, "message": msg}})
}

// Expected is what the service stores for probabilities p over levels
// 0…len(p)−1: round(100·Σ i·pᵢ/(len(p)−1)), computed here independently of
// the code under test.
func Expected(p []float64) int {
	var sum, total float64
	for _, v := range p {
		total += v
	}
	for i, v := range p {
		sum += float64(i) * v / total
	}
	x := 100 * sum / float64(len(p)-1)
	return int(x + 0.5)
}
