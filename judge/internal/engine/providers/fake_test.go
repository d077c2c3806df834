package providers

import (
	"encoding/json"
	"github.com/judgeworks/judge/internal/engine/enginetest"
	"github.com/judgeworks/judge/internal/limits"
	"github.com/judgeworks/shared/calibrate"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

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

// request is a request of qs as the judge hands it to an engine, through
// limits.Check (each choice's options in canonical order); one Check
// refuses is handed on as it is, for the tests of what an upstream does
// with it.
func request(qs map[string]systemone.Question) systemone.Request {
	req := systemone.Request{Model: "judge-1.0", State: raw(`"I was charged twice and I am furious."`), Questions: qs}
	if c, err := limits.Check(req, byteCounter{}); err == nil {
		return c.Request
	}
	return req
}

// byteCounter counts a byte as a token.
type byteCounter struct{}

func (byteCounter) Count(s string) int { return len(s) }

// mixed is a request with one question of each type.
func mixed() systemone.Request {
	return request(map[string]systemone.Question{
		"refund": {Type: systemone.TypeNoul, Instructions: raw(`"Does the customer ask for a refund?"`),
			Noul: &systemone.NoulCriteria{True: systemone.Text("a refund is asked for"), False: systemone.Text("no refund is asked for")}},
		"team":  choice("billing", "technical", "sales"),
		"anger": {Type: systemone.TypeScore, Instructions: raw(`"How angry is the customer?"`), Levels: systemone.Texts("calm", "annoyed", "angry", "furious")},
	})
}

// fiveOrders are the same five options in three orders.
var fiveOrders = [][]string{
	{"billing", "technical", "sales", "legal", "security"},
	{"security", "legal", "sales", "technical", "billing"},
	{"sales", "billing", "security", "technical", "legal"},
}

// choiceTemperature calibrates choices: the option-order law must hold
// through the temperature as well.
var choiceTemperature = calibrate.File{Version: calibrate.FileVersion, Models: map[string]calibrate.Model{
	"peer/semantic-latest": {Temperatures: map[string]float64{"choice": 1.7}},
	"gpt-6-luna":           {Temperatures: map[string]float64{"choice": 1.3}},
}}

// calibrations are the two ways a provider's laws are checked: on the
// upstream's answers as they came, and through choiceTemperature.
var calibrations = []struct {
	name string
	file calibrate.File
}{{"uncalibrated", calibrate.File{}}, {"calibrated", choiceTemperature}}

// The providers obey the laws of every engine against upstreams biased to
// the top of a list (the fakes here), calibrated or not, alone or behind
// a Fallback.
func TestConformance(t *testing.T) {
	sys := newFakeSystemOne(t, nil)
	dec := newFakeDecisions(t, nil)
	for _, cal := range calibrations {
		t.Run("System One "+cal.name, func(t *testing.T) { enginetest.Run(t, newSystemOne(sys.srv.URL, cal.file)) })
		t.Run("Decisions "+cal.name, func(t *testing.T) { enginetest.Run(t, newDecisions(t, dec.srv.URL, cal.file)) })
	}
	t.Run("Fallback", func(t *testing.T) {
		enginetest.Run(t, NewFallback([]Provider{provider("system one", newSystemOne(sys.srv.URL, calibrate.File{}))}, time.Minute, slog.New(slog.DiscardHandler)))
	})
}

// Shown in the caller's order, the fake's bias would move the answer: the
// option-order law has teeth against these upstreams.
func TestTheFakesAreBiased(t *testing.T) {
	at := func(order []string, name string) float64 {
		return optionWeight(slices.Index(order, name), name)
	}
	if at(fiveOrders[0], "billing") == at(fiveOrders[1], "billing") {
		t.Fatal("the fake's bias does not depend on position")
	}
}
