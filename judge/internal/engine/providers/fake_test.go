package providers

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/judgeworks/shared/systemone"
)

const testKey = "peer-key-0123456789abcdef0123456789"

// positionBias weighs the i-th option shown: a model that favours the top
// of a list, as real ones do.
var positionBias = []float64{0.40, 0.25, 0.15, 0.12, 0.08}

// optionWeight is a biased model's weight for the option shown i-th: its
// position's, times a factor read from its name, so both where it is
// shown and what it is move the answer.
func optionWeight(i int, name string) float64 {
	return positionBias[i%len(positionBias)] * float64(1+len(name)%7)
}

// fakeSystemOne is a System One service speaking the wire format: it
// decodes each request with the contract's decoder, records it, and
// answers with reply (nil: the biased model below).
type fakeSystemOne struct {
	srv   *httptest.Server
	mu    sync.Mutex
	calls []recordedCall
	reply func(w http.ResponseWriter, req systemone.Request)
}

type recordedCall struct {
	path, auth string
	body       []byte
	req        systemone.Request
}

func newFakeSystemOne(t *testing.T, reply func(w http.ResponseWriter, req systemone.Request)) *fakeSystemOne {
	t.Helper()
	f := &fakeSystemOne{reply: reply}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req, err := systemone.DecodeRequest(body)
		if err != nil {
			t.Errorf("fake System One: %v", err)
			w.WriteHeader(http.StatusUnprocessableEntity)
			return
		}
		f.mu.Lock()
		f.calls = append(f.calls, recordedCall{r.URL.Path, r.Header.Get("Authorization"), body, req})
		f.mu.Unlock()
		if f.reply != nil {
			f.reply(w, req)
			return
		}
		biased(t, w, req)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeSystemOne) recorded() []recordedCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recordedCall(nil), f.calls...)
}

// biased answers as a model with a position bias would: noul 0.8, a
// choice by optionWeight in the order the options came, a score leaning
// to the middle level.
func biased(t *testing.T, w http.ResponseWriter, req systemone.Request) {
	answers := map[string]systemone.Answer{}
	for name, q := range req.Questions {
		var weights []float64
		switch q.Type {
		case systemone.TypeNoul:
			weights = []float64{0.8, 0.2}
		case systemone.TypeChoice:
			for i, o := range q.Options {
				weights = append(weights, optionWeight(i, o.Name))
			}
		case systemone.TypeScore:
			for i := range q.Levels {
				weights = append(weights, float64(1+min(i, len(q.Levels)-1-i)))
			}
		}
		a, err := systemone.BuildAnswer(q, weights)
		if err != nil {
			t.Errorf("fake System One: %v", err)
		}
		answers[name] = a
	}
	writeJSON(w, http.StatusOK, systemone.Response{Model: "peer-model-2026-01-01", Answers: answers,
		Usage: systemone.Usage{InputTokens: 42, OutputTokens: 3, Cost: 0.5}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// refusedURL is the address of a port nothing listens on.
func refusedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// choice is a choice question over names, each described.
func choice(names ...string) systemone.Question {
	q := systemone.Question{Type: systemone.TypeChoice, Instructions: raw(`"Which team should handle this?"`)}
	for _, n := range names {
		q.Options = append(q.Options, systemone.Option{Name: n, Description: raw(`"handles ` + n + ` issues"`)})
	}
	return q
}

func request(qs map[string]systemone.Question) systemone.Request {
	return systemone.Request{Model: "judge-1.0", State: raw(`"I was charged twice and I am furious."`), Questions: qs}
}

// mixed is a request with one question of each type.
func mixed() systemone.Request {
	return request(map[string]systemone.Question{
		"refund": {Type: systemone.TypeNoul, Instructions: raw(`"Does the customer ask for a refund?"`),
			Noul: &systemone.NoulCriteria{True: "a refund is asked for", False: "no refund is asked for"}},
		"team":  choice("billing", "technical", "sales"),
		"anger": {Type: systemone.TypeScore, Instructions: raw(`"How angry is the customer?"`), Levels: []string{"calm", "annoyed", "angry", "furious"}},
	})
}

// fiveOrders are the same five options in three orders.
var fiveOrders = [][]string{
	{"billing", "technical", "sales", "legal", "security"},
	{"security", "legal", "sales", "technical", "billing"},
	{"sales", "billing", "security", "technical", "legal"},
}

// sameAnswers fails unless the choice answers are identical to the last bit.
func sameAnswers(t *testing.T, order []string, got, want systemone.Answer) {
	t.Helper()
	if len(got.Probabilities) != len(want.Probabilities) {
		t.Fatalf("order %v: %d probabilities, want %d", order, len(got.Probabilities), len(want.Probabilities))
	}
	for name, p := range want.Probabilities {
		if got.Probabilities[name] != p {
			t.Errorf("order %v: p(%s) = %v, want exactly %v", order, name, got.Probabilities[name], p)
		}
	}
	if got.Choice != want.Choice || *got.Confidence != *want.Confidence {
		t.Errorf("order %v: choice %q (%v), want %q (%v)", order, got.Choice, *got.Confidence, want.Choice, *want.Confidence)
	}
}
