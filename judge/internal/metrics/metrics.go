// Package metrics holds the judge's Prometheus collectors, on a registry of
// their own so nothing depends on package-level state.
package metrics

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/judgeworks/shared/systemone"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics records what the judge serves.
type Metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	questions *prometheus.CounterVec
	input     *prometheus.CounterVec
	output    *prometheus.CounterVec
	cost      *prometheus.CounterVec
	// By key id and exact model; only configured ids reach these, and
	// Forget drops the series of a key removed.
	keyRequests, keyUnanswered, keyInput, keyOutput, keyCost *prometheus.CounterVec
	keyRefusals                                              *prometheus.CounterVec

	// The series every request touches, looked up once rather than by
	// their label values each time: by route and status, by key id and
	// model, by question type and by model. Forget drops a key's.
	mu       sync.RWMutex
	byStatus map[routeStatus]requestSeries
	byKey    map[[2]string]keySeries
	byType   map[systemone.QuestionType]prometheus.Counter
	byModel  map[string]modelSeries
}

type routeStatus struct {
	route  string
	status int
}

type requestSeries struct {
	count   prometheus.Counter
	latency prometheus.Observer
}

type keySeries struct{ requests, unanswered, input, output, cost prometheus.Counter }

type modelSeries struct{ input, output, cost prometheus.Counter }

// New creates the collectors and the Go runtime and process collectors.
func New() *Metrics {
	m := &Metrics{
		reg:      prometheus.NewRegistry(),
		byStatus: map[routeStatus]requestSeries{},
		byKey:    map[[2]string]keySeries{},
		byType:   map[systemone.QuestionType]prometheus.Counter{},
		byModel:  map[string]modelSeries{},
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "judge_http_requests_total",
			Help: "HTTP requests by route and status.",
		}, []string{"route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "judge_http_request_duration_seconds",
			Help: "HTTP request latency by route.",
			// From sub-millisecond offline answers to multi-second model calls.
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"route"}),
		questions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "judge_questions_total",
			Help: "Questions answered, by type.",
		}, []string{"type"}),
		input: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "judge_input_tokens_total",
			Help: "Input tokens charged, by model as the registry names it.",
		}, []string{"model"}),
		output: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "judge_output_tokens_total",
			Help: "Output tokens of charged requests, by model as the registry names it.",
		}, []string{"model"}),
		cost: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "judge_cost_usd_total",
			Help: "Cost charged in USD, answered or not, by model as the registry names it.",
		}, []string{"model"}),
	}
	byKey := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	}
	m.keyRequests = byKey("judge_key_requests_total", "Answered requests, by key id and model.", "key", "model")
	m.keyUnanswered = byKey("judge_key_unanswered_requests_total", "Requests that cost money but were not answered, by key id and model.", "key", "model")
	m.keyInput = byKey("judge_key_input_tokens_total", "Input tokens charged, answered or not, by key id and model.", "key", "model")
	m.keyOutput = byKey("judge_key_output_tokens_total", "Output tokens of charged requests, by key id and model.", "key", "model")
	m.keyCost = byKey("judge_key_cost_usd_total", "Cost charged in USD, answered or not, by key id and model.", "key", "model")
	m.keyRefusals = byKey("judge_key_budget_refusals_total", "Requests refused with 402 budget_exceeded, by key id.", "key")
	m.reg.MustRegister(m.requests, m.latency, m.questions, m.input, m.output, m.cost,
		m.keyRequests, m.keyUnanswered, m.keyInput, m.keyOutput, m.keyCost, m.keyRefusals,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Request records one finished HTTP request. route is the route pattern,
// never the raw path, so label values stay few.
func (m *Metrics) Request(route string, status int, d time.Duration) {
	k := routeStatus{route, status}
	m.mu.RLock()
	s, ok := m.byStatus[k]
	m.mu.RUnlock()
	if !ok {
		s = requestSeries{m.requests.WithLabelValues(route, strconv.Itoa(status)), m.latency.WithLabelValues(route)}
		m.mu.Lock()
		m.byStatus[k] = s
		m.mu.Unlock()
	}
	s.count.Inc()
	s.latency.Observe(d.Seconds())
}

// Answered records the questions of an answered request, by type.
func (m *Metrics) Answered(req systemone.Request) {
	for _, q := range req.Questions {
		m.mu.RLock()
		c, ok := m.byType[q.Type]
		m.mu.RUnlock()
		if !ok {
			c = m.questions.WithLabelValues(string(q.Type))
			m.mu.Lock()
			m.byType[q.Type] = c
			m.mu.Unlock()
		}
		c.Inc()
	}
}

// Charged records what one request of key id with model cost, answered
// or not (a request that cost money but was not answered). model is the
// registry's exact name, never an upstream's snapshot (which a provider
// may change at will), so the series are as few as the configuration.
func (m *Metrics) Charged(id, model string, u systemone.Usage, answered bool) {
	k := [2]string{id, model}
	m.mu.RLock()
	s, ok := m.byKey[k]
	ms, mok := m.byModel[model]
	m.mu.RUnlock()
	if !ok || !mok {
		// Made under the lock, so that Forget cannot drop the series
		// between their making and their keeping.
		m.mu.Lock()
		s = keySeries{m.keyRequests.WithLabelValues(id, model), m.keyUnanswered.WithLabelValues(id, model),
			m.keyInput.WithLabelValues(id, model), m.keyOutput.WithLabelValues(id, model), m.keyCost.WithLabelValues(id, model)}
		m.byKey[k] = s
		ms = modelSeries{m.input.WithLabelValues(model), m.output.WithLabelValues(model), m.cost.WithLabelValues(model)}
		m.byModel[model] = ms
		m.mu.Unlock()
	}
	if answered {
		s.requests.Inc()
	} else {
		s.unanswered.Inc()
	}
	// A counter panics when given less than zero; the registry's figures
	// never are, and no figure may take the judge down.
	in, out, cost := float64(max(u.InputTokens, 0)), float64(max(u.OutputTokens, 0)), max(u.Cost, 0)
	s.input.Add(in)
	ms.input.Add(in)
	s.output.Add(out)
	ms.output.Add(out)
	s.cost.Add(cost)
	ms.cost.Add(cost)
}

// BudgetRefused records one request of key id refused for its budget.
func (m *Metrics) BudgetRefused(id string) { m.keyRefusals.WithLabelValues(id).Inc() }

// Forget drops the series of key id, once it is no longer configured.
func (m *Metrics) Forget(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.byKey {
		if k[0] == id {
			delete(m.byKey, k)
		}
	}
	for _, v := range []*prometheus.CounterVec{m.keyRequests, m.keyUnanswered, m.keyInput, m.keyOutput, m.keyCost, m.keyRefusals} {
		v.DeletePartialMatch(prometheus.Labels{"key": id})
	}
}

// SharedLimits is what the metrics read of a rate limiter whose buckets
// live in Redis. *ratelimit.Limiter implements it.
type SharedLimits interface {
	RedisUp() bool
	Fallbacks() uint64
}

// WatchRedis exports whether rate-limit decisions reach Redis and how many
// were made per replica because they could not. Only a judge given a Redis
// calls it, so one without reports no Redis rather than a Redis that is down.
func (m *Metrics) WatchRedis(l SharedLimits) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "judge_ratelimit_redis_up",
			Help: "1 while rate-limit decisions are made in Redis (shared by replicas), 0 while each replica decides alone.",
		}, func() float64 {
			if l.RedisUp() {
				return 1
			}
			return 0
		}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "judge_ratelimit_fallback_decisions_total",
			Help: "Rate-limit decisions made per replica because Redis could not be used.",
		}, func() float64 { return float64(l.Fallbacks()) }),
	)
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
