// Package chatadapter answers System One requests with any
// OpenAI-compatible chat model: the prompt (prompt.go), the readouts of
// logprobs or stated probabilities and the tournament for large choices
// (readout.go, adapter.go), the gate its calls pass (gate.go: the judge
// plugs its fair queue in there) and the reply decoding (wire.go). Its
// Adapter is a systemone.Backend, so a Go program can use it in place of
// systemone.Client; the judge serves it as llm-latest beside its offline
// engines (judge/internal/engine).
//
// It depends on shared/systemone (the wire types and math), shared/chatmodel
// (the client and the LLM_* settings) and shared/calibrate (temperatures),
// never the reverse. Its errors say what happened (errors.go); a server maps
// them to statuses. See docs/adapter.md.
package chatadapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/judgeworks/shared/calibrate"
	"github.com/judgeworks/shared/chatmodel"
	"github.com/judgeworks/shared/coherent"
	"github.com/judgeworks/shared/systemone"
	"github.com/judgeworks/shared/tokens"
)

// Adapter answers System One requests with an OpenAI-compatible chat model,
// on the caller's side of the wire. It is safe for concurrent use.
type Adapter struct {
	cfg    config
	client openai.Client
	// readouts remembers, per model, that the provider gave no logprobs,
	// so auto mode stops asking for them.
	readouts sync.Map // model name → readout
	// logprobsSeen says the provider has answered with logprobs, so in
	// auto mode a request no longer needs the probabilities readout's
	// second pass planned.
	logprobsSeen atomic.Bool
}

var _ systemone.Backend = (*Adapter)(nil)

// AnswerMode says what an answer's probabilities are.
type AnswerMode string

const (
	// AnswerProbabilities keeps the model's (calibrated) distribution.
	AnswerProbabilities AnswerMode = "probabilities"
	// AnswerDiscrete puts all mass on the most probable outcome (one-hot),
	// for callers that want a plain decision.
	AnswerDiscrete AnswerMode = "discrete"
)

// ReadoutMode says how probabilities are read from the model.
type ReadoutMode string

const (
	// ReadoutAuto uses logprobs and falls back to probabilities, for good,
	// for a model whose provider returns no logprobs.
	ReadoutAuto ReadoutMode = "auto"
	// ReadoutLogprobs reads the top logprobs of a one-token label answer.
	ReadoutLogprobs ReadoutMode = "logprobs"
	// ReadoutProbabilities asks for a JSON object of one number per label.
	ReadoutProbabilities ReadoutMode = "probabilities"
)

// ChoiceMode says how a choice question's options are weighed.
type ChoiceMode string

const (
	// ChoiceJoint shows the model every option in one call (or the
	// tournament's calls) and reads one probability per option.
	ChoiceJoint ChoiceMode = "joint"
	// ChoiceApart asks about each option alone, as a yes/no question
	// ("is this the answer?"), and answers the choice with those yes
	// probabilities normalised: the odds between two options are then
	// the same whichever other options are offered. It costs one call
	// per option instead of one per question (or ⌈n/20⌉+1).
	ChoiceApart ChoiceMode = "apart"
)

// Defaults of the adapter's settings.
const (
	DefaultMalformedRetries = 2
	DefaultRequestTimeout   = 60 * time.Second
	DefaultFaultRetries     = 4
	UpstreamBackoffBase     = 200 * time.Millisecond
	UpstreamBackoffMax      = 5 * time.Second
	// DefaultOverloadRetryAfter is an OverloadedError's RetryAfter when
	// the provider named no wait of its own.
	DefaultOverloadRetryAfter = 2 * time.Second
)

type config struct {
	llm              chatmodel.Settings
	callTimeout      time.Duration
	structured       bool
	answerMode       AnswerMode
	normalize        bool
	malformedRetries int
	readout          ReadoutMode
	gate             Gate
	rotations        int
	choice           ChoiceMode
	calibration      calibrate.File
	requestTimeout   time.Duration
	faultRetries     int
	backoffBase      time.Duration
	backoffMax       time.Duration
	clientOptions    []option.RequestOption
	logger           *slog.Logger
	onCall           func(context.Context, systemone.Usage)
}

// Option configures New.
type Option func(*config)

// WithProvider sets the OpenAI-compatible endpoint (base URL including
// /v1), key and model: LLM_BASE_URL, LLM_API_KEY and LLM_MODEL.
func WithProvider(baseURL, apiKey, model string) Option {
	return func(c *config) {
		c.llm.BaseURL, c.llm.APIKey, c.llm.Model = baseURL, apiKey, model
	}
}

// WithLLMSettings sets the provider from settings read by chatmodel.FromEnv.
// Their CallTimeout is kept unless WithUpstreamTimeouts sets one.
func WithLLMSettings(s chatmodel.Settings) Option {
	return func(c *config) { c.llm = s }
}

// WithStructuredOutputs turns the strict JSON schema of the probabilities
// readout on (the default) or off, for providers without structured
// outputs; off, the reply is still parsed as strictly.
func WithStructuredOutputs(on bool) Option {
	return func(c *config) { c.structured = on }
}

// WithAnswerMode chooses probabilities (the default) or discrete one-hot answers.
func WithAnswerMode(m AnswerMode) Option {
	return func(c *config) { c.answerMode = m }
}

// WithNormalize says whether a probabilities reply that does not sum to 1
// is scaled (the default) or treated as malformed and retried.
func WithNormalize(on bool) Option {
	return func(c *config) { c.normalize = on }
}

// WithMalformedRetries sets how many corrective retries a reply that
// breaks the format gets before the request fails (default 2).
func WithMalformedRetries(n int) Option {
	return func(c *config) { c.malformedRetries = max(n, 0) }
}

// WithReadout chooses auto (the default), logprobs or probabilities.
func WithReadout(m ReadoutMode) Option {
	return func(c *config) { c.readout = m }
}

// WithRotations evaluates choice and score questions under k rotations of
// the option order and averages them, against position bias; it costs k
// times the calls. k ≤ 1 turns it off (the default).
func WithRotations(k int) Option {
	return func(c *config) { c.rotations = max(k, 1) }
}

// WithChoiceMode chooses joint (the default) or apart for choice
// questions.
func WithChoiceMode(m ChoiceMode) Option {
	return func(c *config) { c.choice = m }
}

// WithCalibration applies the temperatures of f to the configured model's answers.
func WithCalibration(f calibrate.File) Option {
	return func(c *config) { c.calibration = f }
}

// WithUpstreamTimeouts sets the deadline of one chat call and the
// deadline of a request whose context has none.
func WithUpstreamTimeouts(call, request time.Duration) Option {
	return func(c *config) { c.callTimeout, c.requestTimeout = call, request }
}

// WithUpstreamRetries sets how often a call is retried after a provider
// 429, 5xx or timeout, and the base and cap of the jittered exponential
// backoff between tries. Retries stop earlier when the request's deadline
// would pass during the wait.
func WithUpstreamRetries(n int, base, maxWait time.Duration) Option {
	return func(c *config) { c.faultRetries, c.backoffBase, c.backoffMax = max(n, 0), base, maxWait }
}

// WithUpstreamOptions adds openai-go request options (middleware, an HTTP
// client, headers some gateways need).
func WithUpstreamOptions(opts ...option.RequestOption) Option {
	return func(c *config) { c.clientOptions = append(c.clientOptions, opts...) }
}

// WithCallUsage has f told of every upstream call that was sent (its
// request written whole to a connection), with the tokens it is charged
// (see Ask): also the calls of a request that then fails, times out or is
// cancelled, which a provider bills all the same. f runs on the call's
// goroutine and must be quick.
func WithCallUsage(f func(ctx context.Context, u systemone.Usage)) Option {
	return func(c *config) { c.onCall = f }
}

// WithLogger sets where retries and fallbacks are logged.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// New returns an adapter for the configured provider. It fails when a
// setting is missing or malformed, naming the setting.
func New(opts ...Option) (*Adapter, error) {
	cfg := config{
		structured:       true,
		answerMode:       AnswerProbabilities,
		normalize:        true,
		malformedRetries: DefaultMalformedRetries,
		readout:          ReadoutAuto,
		gate:             open{},
		rotations:        1,
		choice:           ChoiceJoint,
		calibration:      calibrate.File{Version: calibrate.FileVersion},
		requestTimeout:   DefaultRequestTimeout,
		faultRetries:     DefaultFaultRetries,
		backoffBase:      UpstreamBackoffBase,
		backoffMax:       UpstreamBackoffMax,
		logger:           slog.Default(),
		onCall:           func(context.Context, systemone.Usage) {},
	}
	for _, o := range opts {
		o(&cfg)
	}
	switch cfg.readout {
	case ReadoutAuto, ReadoutLogprobs, ReadoutProbabilities:
	default:
		return nil, fmt.Errorf("unknown readout %q (auto, logprobs or probabilities)", cfg.readout)
	}
	switch cfg.choice {
	case ChoiceJoint, ChoiceApart:
	default:
		return nil, fmt.Errorf("unknown choice mode %q (joint or apart)", cfg.choice)
	}
	switch cfg.answerMode {
	case AnswerProbabilities, AnswerDiscrete:
	default:
		return nil, fmt.Errorf("unknown answer mode %q (probabilities or discrete)", cfg.answerMode)
	}
	if cfg.requestTimeout <= 0 {
		cfg.requestTimeout = DefaultRequestTimeout
	}
	if cfg.callTimeout > 0 {
		cfg.llm.CallTimeout = cfg.callTimeout
	}
	client, err := chatmodel.NewClient(cfg.llm, cfg.clientOptions...)
	if err != nil {
		return nil, err
	}
	return &Adapter{cfg: cfg, client: client}, nil
}

// Model is the configured upstream model (LLM_MODEL).
func (a *Adapter) Model() string { return a.cfg.llm.Model }

// Readout is the readout the adapter uses now for its model: in auto mode
// logprobs until the provider has shown it has none.
func (a *Adapter) Readout() string { return string(a.readoutNow()) }

func (a *Adapter) readoutNow() readout {
	switch a.cfg.readout {
	case ReadoutLogprobs:
		return readoutLogprobs
	case ReadoutProbabilities:
		return readoutProbabilities
	}
	if r, ok := a.readouts.Load(a.cfg.llm.Model); ok {
		return r.(readout)
	}
	return readoutLogprobs
}

// job is what the calls of one request share: the state block every
// prompt starts with, the request's admission to the upstream queue, and
// the tokens charged, summed over the calls sent.
type job struct {
	state         string
	admitted      Admission
	input, output atomic.Int64
	mu            sync.Mutex
	snapshot      string
	// stateTokens counts the system message and the state block, which
	// every call's prompt starts with, once, when a call's prompt must be
	// counted (charge).
	stateTokens func() int
}

func newJob(state string, admitted Admission) *job {
	return &job{state: state, admitted: admitted, stateTokens: sync.OnceValue(func() int {
		return systemPromptTokens() + tokens.Default().Count(state)
	})}
}

// charge counts one call that was sent: size bytes whose reply reported
// c's usage (c is nil when no reply was read). A count the reply does not
// give, or gives beyond belief, is counted here (tokens.Reported), so
// every call sent is charged, answered or not.
func (a *Adapter) charge(ctx context.Context, j *job, size int, c *chatCompletion, counted func() int) {
	var prompt, completion int64
	if c != nil {
		prompt, completion = c.Usage.PromptTokens, c.Usage.CompletionTokens
	}
	u := systemone.Usage{
		InputTokens:  tokens.Reported(prompt, tokens.BytesLimit(size), counted),
		OutputTokens: tokens.ReportedOutput(completion),
	}
	j.input.Add(int64(u.InputTokens))
	j.output.Add(int64(u.OutputTokens))
	a.cfg.onCall(ctx, u)
}

// add notes the model snapshot a reply names.
func (j *job) add(c *chatCompletion) {
	if c.Model != "" {
		j.mu.Lock()
		if j.snapshot == "" {
			j.snapshot = c.Model
		}
		j.mu.Unlock()
	}
}

// Ask answers every question of req with one chat call per question (more
// for rotations and large choices), all in parallel through the adapter's
// gate. The request's calls are admitted whole or refused at once, before
// any call (gate.go). Response.Model is the model snapshot the provider
// reported; Usage sums the tokens of every call sent, retries included:
// the provider's counts, or the prompt as counted here where a reply gave
// none, gave one beyond belief, or never came (tokens.Reported). Cost is
// left to the caller's price table. A failure is an *OverloadedError,
// *MisconfiguredError or *InvalidOutputError (errors.go), a
// *systemone.ValidationError, the gate's refusal, or ctx's error.
//
// The laws of shared/coherent hold by construction: options that say the
// same thing are asked about once and split evenly, a choice or score of
// yes and no is asked as the noul question it is, a negated question is
// asked in its positive form, once, and a question about other questions
// of the request is worked out from their answers.
func (a *Adapter) Ask(ctx context.Context, req systemone.Request) (*systemone.Response, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	return coherent.Ask(ctx, req, a.askCore)
}

// askCore answers a valid request whose questions coherent has rewritten.
func (a *Adapter) askCore(ctx context.Context, req systemone.Request) (*systemone.Response, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.cfg.requestTimeout)
		defer cancel()
	}
	state, err := renderState(req.State)
	if err != nil {
		return nil, err
	}
	r := a.readoutNow()
	type question struct {
		name   string
		q      systemone.Question
		rounds [][]call
	}
	qs := make([]question, 0, len(req.Questions))
	// A choice's options are shown in their canonical order, a function
	// of the set of options (systemone.CanonicalOptions), and every sum
	// runs in it: the same options listed in any order give the same
	// answer to the last bit. The order is not alphabetical, so no name
	// buys the first place; rotations rotate it to average out the bias a
	// position still carries. Score levels keep their order.
	for _, name := range req.QuestionNames() {
		qs = append(qs, question{name: name, q: req.Questions[name].Canonical()})
	}
	calls := 0
	for i := range qs {
		qs[i].rounds = a.rounds(&qs[i].q, r)
		for _, round := range qs[i].rounds {
			calls += len(round)
		}
	}
	admitted, err := a.cfg.gate.Admit(ctx, calls)
	if err != nil {
		return nil, err
	}
	defer admitted.Done()
	j := newJob(state, admitted)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		wg       sync.WaitGroup
		firstErr error
	)
	answers := make(map[string]systemone.Answer, len(qs))
	for i := range qs {
		wg.Go(func() {
			q := &qs[i]
			ans, err := a.answer(ctx, j, &q.q, q.rounds, r)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				// The first failure is the cause; the others are
				// mostly the cancellation it triggers.
				if firstErr == nil {
					firstErr = err
					cancel()
				}
				return
			}
			answers[q.name] = ans
		})
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	model := j.snapshot
	if model == "" {
		model = a.cfg.llm.Model
	}
	return &systemone.Response{
		Model:   model,
		Answers: answers,
		Order:   req.QuestionNames(),
		Usage:   systemone.Usage{InputTokens: int(j.input.Load()), OutputTokens: int(j.output.Load())},
	}, nil
}

// PlannedInputTokens is the input tokens Ask will send for req along its
// most expensive path, for the judge's token budget (the registry's
// Engine): for every upstream call, the system message and the user
// message (state block, then question) exactly as Ask builds them,
// counted with shared/tokens, rotations and the tournament's group and
// final calls included. In auto mode, until the provider has answered
// with logprobs, the probabilities readout's second pass is planned too:
// a provider without logprobs makes every question run again. Retries
// are not planned, since nothing says in advance whether there will be
// any: a provider fault, a malformed reply and its correction. req must
// be valid.
func (a *Adapter) PlannedInputTokens(req systemone.Request) int {
	req, _ = coherent.Rewrite(req)
	count := tokens.Default()
	state, err := renderState(req.State)
	if err != nil {
		return 0 // not a valid request
	}
	// Every call's messages start with the same system message and state
	// block, and the tokenizer always ends a piece at the block's end (its
	// last piece is ">\n\n", and the question starts with a letter), so
	// the block is counted once and each call's question alone: a
	// 30,000-token state is not tokenized again for every call.
	perCall := systemPromptTokens() + count.Count(state)
	passes := []readout{a.readoutNow()}
	if a.cfg.readout == ReadoutAuto && passes[0] == readoutLogprobs && !a.logprobsSeen.Load() {
		passes = append(passes, readoutProbabilities)
	}
	total := 0
	for _, r := range passes {
		for _, q := range req.Questions {
			q = q.Canonical()
			for _, round := range a.rounds(&q, r) {
				for _, c := range round {
					total += perCall + count.Count(c.prompt("", c.labels()))
				}
			}
		}
	}
	return total
}

// systemPromptTokens is the system message's token count, the same for
// every call.
var systemPromptTokens = sync.OnceValue(func() int { return tokens.Default().Count(systemPrompt) })

// answer runs one question: its distribution over outcomes (falling back
// from logprobs to probabilities when the provider has none), then the
// calibration temperature, then the answer mode. rounds are the question's
// calls with readout r (see rounds).
func (a *Adapter) answer(ctx context.Context, j *job, q *systemone.Question, rounds [][]call, r readout) (systemone.Answer, error) {
	w, err := a.distribution(ctx, j, q, rounds)
	if errors.Is(err, errNoLogprobs) {
		if a.cfg.readout != ReadoutAuto {
			return systemone.Answer{}, &MisconfiguredError{Setting: chatmodel.EnvModel,
				Message: fmt.Sprintf("the provider returns no logprobs for %s; use the probabilities or auto readout", chatmodel.EnvModel)}
		}
		if _, loaded := a.readouts.Swap(a.cfg.llm.Model, readoutProbabilities); !loaded {
			a.cfg.logger.Info("provider returns no logprobs; using the probabilities readout", "model", a.cfg.llm.Model)
		}
		r = readoutProbabilities
		w, err = a.distribution(ctx, j, q, a.rounds(q, r))
	}
	if err != nil {
		return systemone.Answer{}, err
	}
	if temp := a.cfg.calibration.Temperature(a.cfg.llm.Model, string(r), string(q.Type)); temp != 1 {
		w = calibrate.Scale(w, temp)
	}
	if a.cfg.answerMode == AnswerDiscrete {
		w = oneHot(w)
	}
	return systemone.BuildAnswer(*q, w)
}

func oneHot(w []float64) []float64 {
	out := make([]float64, len(w))
	out[systemone.Argmax(w)] = 1
	return out
}

// call is one upstream call, described but not yet built: the outcomes of
// q it shows, in order, or for the final call of a tournament the groups
// of options it shows. Its prompt is built only once the call has an
// upstream slot, so the prompts of queued calls never sit in memory.
type call struct {
	q      *systemone.Question
	order  []int
	groups [][]int
	r      readout
	// apart marks a call about the one option in order alone, asked as
	// yes or no (ChoiceApart).
	apart bool
}

// outcomeCount is the number of outcomes of q: yes and no, the options or
// the levels; 0 for an unknown type.
func outcomeCount(q *systemone.Question) int {
	switch q.Type {
	case systemone.TypeNoul:
		return 2
	case systemone.TypeChoice:
		return len(q.Options)
	case systemone.TypeScore:
		return len(q.Levels)
	}
	return 0
}

// rounds lists the calls that answer q with readout r, one list per
// rotation of the option order: one call, or for a choice larger than the
// logprobs window the tournament's group calls and then its final call.
// Ask makes exactly these calls (plus retries); its admission and
// PlannedInputTokens count them.
func (a *Adapter) rounds(q *systemone.Question, r readout) [][]call {
	n := outcomeCount(q)
	if q.Type == systemone.TypeNoul {
		return [][]call{{{q: q, order: []int{0, 1}, r: r}}}
	}
	if q.Type == systemone.TypeChoice && a.cfg.choice == ChoiceApart {
		// One yes/no call per option, each alone: no order to rotate.
		calls := make([]call, n)
		for o := range calls {
			calls[o] = call{q: q, order: []int{o}, r: r, apart: true}
		}
		return [][]call{calls}
	}
	k := min(a.cfg.rotations, n)
	out := make([][]call, k)
	for i := range k {
		order := rotation(n, i*n/k)
		if r == readoutLogprobs && q.Type == systemone.TypeChoice && n > TopLogprobs {
			groups := splitGroups(order, TopLogprobs)
			calls := make([]call, 0, len(groups)+1)
			for _, g := range groups {
				calls = append(calls, call{q: q, order: g, r: r})
			}
			out[i] = append(calls, call{q: q, groups: groups, r: r})
		} else {
			out[i] = []call{{q: q, order: order, r: r}}
		}
	}
	return out
}

// distribution returns one probability per outcome of q (yes and no; each
// option; each level), averaged over the rotations of the option order.
func (a *Adapter) distribution(ctx context.Context, j *job, q *systemone.Question, rounds [][]call) ([]float64, error) {
	if len(rounds) == 0 {
		return nil, fmt.Errorf("unknown question type %q", q.Type)
	}
	k := len(rounds)
	runs := make([][]float64, k)
	errs := make([]error, k)
	run := func(i int) {
		if calls := rounds[i]; calls[0].apart {
			runs[i], errs[i] = a.apart(ctx, j, q, calls)
		} else if len(calls) > 1 {
			runs[i], errs[i] = a.tournament(ctx, j, q, calls)
		} else {
			runs[i], errs[i] = a.ask(ctx, j, calls[0])
		}
	}
	if k == 1 {
		// Without rotations the question's own goroutine makes the call:
		// a second one would only grow a fresh stack through the HTTP
		// client's deep frames.
		run(0)
	} else {
		var wg sync.WaitGroup
		for i := range k {
			wg.Go(func() { run(i) })
		}
		wg.Wait()
	}
	if err := firstError(errs); err != nil {
		return nil, err
	}
	avg := make([]float64, outcomeCount(q))
	for _, p := range runs {
		for j, x := range p {
			avg[j] += x / float64(k)
		}
	}
	return avg, nil
}

// rotation is 0…n-1 starting at shift.
func rotation(n, shift int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = (i + shift) % n
	}
	return order
}

// firstError prefers a real failure over the cancellations it caused.
func firstError(errs []error) error {
	var fallback error
	for _, err := range errs {
		if err == nil {
			continue
		}
		if errors.Is(err, errNoLogprobs) {
			return err
		}
		if !errors.Is(err, context.Canceled) {
			return err
		}
		fallback = err
	}
	return fallback
}

// tournament reads a choice of more than TopLogprobs options with the
// logprobs readout. The options are split into g = ⌈n/20⌉ groups of
// near-equal size. One call per group asks for the best option within the
// group, p(o | G); one more call shows the groups themselves as the
// options, p(G). Then p(o) = p(G(o)) · p(o | G(o)), which sums to 1 over
// all options. All g+1 calls are independent, so they run in parallel and
// the choice costs one round trip and g+1 calls (255 options: 14 calls).
// g ≤ 13 for the 255-option maximum, so one level of groups always fits
// in the window. calls are the group calls and then the final call, as
// rounds lists them.
func (a *Adapter) tournament(ctx context.Context, j *job, q *systemone.Question, calls []call) ([]float64, error) {
	final := calls[len(calls)-1]
	groups := final.groups
	within := make([][]float64, len(groups))
	errs := make([]error, len(calls))
	var between []float64
	var wg sync.WaitGroup
	for i, c := range calls[:len(groups)] {
		wg.Go(func() {
			within[i], errs[i] = a.ask(ctx, j, c)
		})
	}
	wg.Go(func() {
		between, errs[len(groups)] = a.read(ctx, j, final)
	})
	wg.Wait()
	if err := firstError(errs); err != nil {
		return nil, err
	}
	p := make([]float64, len(q.Options))
	for i := range groups {
		for _, o := range groups[i] {
			p[o] = between[i] * within[i][o]
		}
	}
	return p, nil
}

// apart reads a choice under ChoiceApart: one yes/no call per option,
// all in parallel, and the options weighed by their probabilities of yes.
// An option's weight depends on that option alone, so the choice's
// probabilities (the weights normalised) keep the odds between two
// options whichever others are offered. A weight never falls below
// minApart, so options the model rejects alike share what is left evenly
// rather than leaving nothing to normalise.
func (a *Adapter) apart(ctx context.Context, j *job, q *systemone.Question, calls []call) ([]float64, error) {
	w := make([]float64, len(q.Options))
	errs := make([]error, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Go(func() {
			p, err := a.read(ctx, j, c)
			if err != nil {
				errs[i] = err
				return
			}
			w[c.order[0]] = math.Max(p[0], minApart)
		})
	}
	wg.Wait()
	if err := firstError(errs); err != nil {
		return nil, err
	}
	return w, nil
}

// minApart is the least weight of an option under ChoiceApart.
const minApart = 1e-6

// splitGroups cuts order into ⌈n/size⌉ consecutive groups whose sizes
// differ by at most one.
func splitGroups(order []int, size int) [][]int {
	g := (len(order) + size - 1) / size
	groups := make([][]int, 0, g)
	start := 0
	for i := range g {
		n := len(order) / g
		if i < len(order)%g {
			n++
		}
		groups = append(groups, order[start:start+n])
		start += n
	}
	return groups
}

// ask makes call c, which shows the outcomes of its question in c.order,
// and returns one probability per outcome of the question (indexed like
// its outcomes; outcomes not shown get 0).
func (a *Adapter) ask(ctx context.Context, j *job, c call) ([]float64, error) {
	p, err := a.read(ctx, j, c)
	if err != nil {
		return nil, err
	}
	out := make([]float64, outcomeCount(c.q))
	for i, o := range c.order {
		out[o] = p[i]
	}
	return out, nil
}

// labels are the labels call c shows, one per entry.
func (c call) labels() []string {
	switch {
	case c.groups != nil:
		return choiceLabels(len(c.groups))
	case c.q.Type == systemone.TypeNoul, c.apart:
		return noulLabels
	case c.q.Type == systemone.TypeScore:
		return levelLabels(len(c.order))
	}
	return choiceLabels(len(c.order))
}

// prompt builds the user message of call c after the state block state
// ("" gives the question part alone, which PlannedInputTokens counts).
// The final call of a tournament shows each group as one labeled entry
// listing its options.
func (c call) prompt(state string, labels []string) string {
	if c.groups != nil {
		entries := make([]shown, len(c.groups))
		for i, g := range c.groups {
			var b strings.Builder
			b.WriteString("one of these options:")
			for _, o := range g {
				b.WriteString("\n   - ")
				b.WriteString(optionText(c.q.Options[o]))
			}
			entries[i] = shown{label: labels[i], text: b.String()}
		}
		heading := "The options come in groups. Choose the group that contains the best option:"
		return questionPrompt(state, *c.q, entries, heading, readoutLogprobs)
	}
	if c.apart {
		return questionPrompt(state, apartQuestion(*c.q, c.q.Options[c.order[0]]), nil, "", c.r)
	}
	heading := "Options:"
	if c.q.Type == systemone.TypeScore {
		heading = "Levels, lowest first:"
		if c.order[0] != 0 {
			heading = "Levels (this list is in no particular order):"
		}
	}
	entries := make([]shown, len(c.order))
	for i, o := range c.order {
		entries[i].label = labels[i]
		switch c.q.Type {
		case systemone.TypeChoice:
			entries[i].text = optionText(c.q.Options[o])
		case systemone.TypeScore:
			entries[i].text = levelText(c.q.Levels[o])
		}
	}
	return questionPrompt(state, *c.q, entries, heading, c.r)
}

// read makes call c and reads one probability per label. A reply that
// breaks the format is retried up to the configured number of times; for
// the probabilities readout the retry carries the bad reply and a
// corrective message saying what was wrong. The request body is built
// each time the call gets an upstream slot, and dropped when the slot is
// given back.
func (a *Adapter) read(ctx context.Context, j *job, c call) ([]float64, error) {
	labels := c.labels()
	var corrections []chatMessage
	body := func() ([]byte, error) {
		req := chatRequest{
			Model:    a.cfg.llm.Model,
			Messages: make([]chatMessage, 2, 2+len(corrections)),
		}
		req.Messages[0] = chatMessage{Role: "system", Content: systemPrompt}
		req.Messages[1] = chatMessage{Role: "user", Content: c.prompt(j.state, labels)}
		req.Messages = append(req.Messages, corrections...)
		if c.r == readoutLogprobs {
			req.MaxTokens, req.Logprobs, req.TopLogprobs = 1, true, TopLogprobs
		} else {
			req.MaxTokens = probabilitiesTokens(len(labels))
			if a.cfg.structured {
				req.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: jsonSchema{
					Name: "probabilities", Strict: true, Schema: probabilitiesSchema(labels),
				}}
			}
		}
		return json.Marshal(&req)
	}
	// counted is the prompt's tokens as the body carries it, for a call
	// whose reply gives no believable count.
	counted := func() int {
		n := j.stateTokens() + tokens.Default().Count(c.prompt("", labels))
		for _, m := range corrections {
			n += tokens.Default().Count(m.Content)
		}
		return n
	}
	r := c.r
	for attempt := 0; ; attempt++ {
		reply, err := a.chat(ctx, j, body, counted, r)
		if err != nil {
			return nil, err
		}
		j.add(reply)
		var content string
		var p []float64
		switch {
		case len(reply.Choices) == 0:
			err = malformed("the reply had no choices")
		case r == readoutLogprobs:
			content = reply.Choices[0].Message.Content
			lp := reply.Choices[0].Logprobs
			if lp == nil || len(lp.Content) == 0 {
				return nil, errNoLogprobs
			}
			tops := lp.Content[0].TopLogprobs
			if len(tops) == 0 {
				tops = []tokenLogprob{{Token: lp.Content[0].Token, Logprob: lp.Content[0].Logprob}}
			}
			if p, err = readLogprobs(tops, labels); err == nil {
				a.logprobsSeen.Store(true)
			}
		case reply.Choices[0].Message.Refusal != "":
			content = reply.Choices[0].Message.Refusal
			err = malformed("the reply was a refusal instead of the JSON object")
		default:
			content = reply.Choices[0].Message.Content
			p, err = parseProbabilities(content, labels, a.cfg.normalize)
		}
		if err == nil {
			return p, nil
		}
		var bad *malformedError
		if !errors.As(err, &bad) {
			return nil, err
		}
		if attempt >= a.cfg.malformedRetries {
			a.cfg.logger.Warn("malformed model replies; giving up", "model", a.cfg.llm.Model, "attempts", attempt+1, "reason", a.redact(bad.reason))
			return nil, &InvalidOutputError{
				Message: fmt.Sprintf("the model of %s did not answer in the required format after %d attempts",
					chatmodel.EnvModel, attempt+1)}
		}
		a.cfg.logger.Warn("malformed model reply; retrying", "model", a.cfg.llm.Model, "readout", r, "reason", bad.reason)
		if r == readoutProbabilities {
			corrections = append(corrections,
				chatMessage{Role: "assistant", Content: chatmodel.Excerpt(content)},
				chatMessage{Role: "user", Content: correction(bad.reason, labels)})
		}
	}
}

// correction is the corrective message sent after a malformed reply.
func correction(reason string, labels []string) string {
	return "Your reply could not be used: " + reason + ". Reply again with only a JSON object with exactly the keys " +
		strings.Join(labels, ", ") + ", each a number from 0 to 1, summing to 1, for example " + exampleObject(labels) + "."
}

// chat makes one chat call in a slot of the request's admission to the
// upstream queue, retrying provider 429s, 5xx replies and timeouts with
// jittered exponential backoff (or the provider's retry-after) while the
// request's deadline allows. body builds the request body once the call
// has its slot, on every try. Every try that was sent is charged (charge),
// whatever comes back; counted counts the prompt for one whose reply gives
// no believable count. A call the budget cannot cover fails with an
// OverloadedError; a provider that rejects the settings fails with a
// MisconfiguredError naming the setting.
func (a *Adapter) chat(ctx context.Context, j *job, body func() ([]byte, error), counted func() int, r readout) (*chatCompletion, error) {
	var last string
	for attempt := 0; ; attempt++ {
		release, err := j.admitted.Acquire(ctx)
		if err != nil {
			return nil, a.budgetGone(ctx, last, 0)
		}
		b, err := body()
		if err != nil {
			release(Failed)
			return nil, err
		}
		var c chatCompletion
		var res *http.Response
		sctx, sent := chatmodel.WatchSent(ctx)
		err = a.client.Post(sctx, "chat/completions", json.RawMessage(b), &res)
		if err == nil {
			err = readReply(res, &c)
		}
		if sent() {
			reply := &c
			if err != nil {
				reply = nil
			}
			a.charge(ctx, j, len(b), reply, counted)
		}
		f := a.classify(ctx, err, r)
		release(f.outcome)
		if f.final {
			if f.err != nil {
				return nil, f.err
			}
			return &c, nil
		}
		last = f.reason
		if attempt >= a.cfg.faultRetries {
			a.cfg.logger.Warn("upstream retries exhausted", "model", a.cfg.llm.Model, "attempts", attempt+1, "last", last)
			return nil, a.budgetGone(ctx, last, f.retryAfter)
		}
		wait := a.backoff(attempt)
		if f.retryAfter > 0 {
			// Honour the provider's wait, with a little jitter so the
			// calls it throttled do not all return at the same instant.
			wait = f.retryAfter + time.Duration(rand.Int64N(int64(f.retryAfter/10)+1))
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
			return nil, a.budgetGone(ctx, last, max(wait, f.retryAfter))
		}
		a.cfg.logger.Debug("upstream call failed; retrying", "model", a.cfg.llm.Model, "attempt", attempt+1, "wait", wait, "reason", last)
		select {
		case <-ctx.Done():
			return nil, a.budgetGone(ctx, last, 0)
		case <-time.After(wait):
		}
	}
}

// budgetGone is the OverloadedError of a request whose retries or deadline
// ran out, or the cancellation of one whose caller went away.
func (a *Adapter) budgetGone(ctx context.Context, last string, retryAfter time.Duration) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return fmt.Errorf("request canceled: %w", ctx.Err())
	}
	if retryAfter <= 0 {
		retryAfter = DefaultOverloadRetryAfter
	}
	msg := "the upstream model did not answer within the request's deadline"
	if last != "" {
		msg += " (last failure: " + last + ")"
	}
	return &OverloadedError{Message: msg, RetryAfter: retryAfter, Err: ctx.Err()}
}

func (a *Adapter) backoff(attempt int) time.Duration {
	ceiling := min(a.cfg.backoffMax, a.cfg.backoffBase<<min(attempt, 20))
	if ceiling <= 0 {
		return 0
	}
	// Full jitter: spreads the retries of many failed calls evenly.
	return time.Duration(rand.Int64N(int64(ceiling))) + ceiling/10
}

// fault is what one call's error means for the caller.
type fault struct {
	final      bool // return err now (nil err: success)
	err        error
	outcome    Outcome
	retryAfter time.Duration
	reason     string // why a retry is needed, for logs and the final OverloadedError
}

func (a *Adapter) classify(ctx context.Context, err error, r readout) fault {
	if err == nil {
		return fault{final: true, outcome: Answered}
	}
	// The caller learns which setting to check; the provider's own words,
	// the model's name and the base URL go to the log only, redacted.
	misconfigured := func(setting, detail, format string, args ...any) fault {
		a.cfg.logger.Warn("the provider refused the settings", "model", a.cfg.llm.Model, "setting", setting, "detail", detail)
		return fault{final: true, outcome: Failed, err: &MisconfiguredError{Setting: setting,
			Message: fmt.Sprintf(format, args...) + "; check " + setting}}
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		status := apiErr.StatusCode
		msg := a.redact(apiErr.Message)
		switch {
		case status == http.StatusTooManyRequests:
			f := fault{outcome: Throttled, reason: "provider 429"}
			if apiErr.Response != nil {
				f.retryAfter, _ = systemone.RetryAfter(apiErr.Response.Header, time.Now())
			}
			return f
		case status == http.StatusRequestTimeout || status >= 500:
			f := fault{outcome: Failed, reason: fmt.Sprintf("provider %d", status)}
			if apiErr.Response != nil {
				f.retryAfter, _ = systemone.RetryAfter(apiErr.Response.Header, time.Now())
			}
			return f
		case status == http.StatusUnauthorized || status == http.StatusForbidden:
			// The provider's text may quote part of the key; it is not shown.
			return misconfigured(chatmodel.EnvAPIKey, "", "the provider refused the key (%d)", status)
		case status == http.StatusNotFound:
			if apiErr.Code == "model_not_found" || strings.Contains(strings.ToLower(msg), "model") {
				return misconfigured(chatmodel.EnvModel, msg, "the provider does not know the model of %s (404)", chatmodel.EnvModel)
			}
			return misconfigured(chatmodel.EnvBaseURL, msg, "the provider has no chat completions endpoint under %s (404); the base URL must include /v1", chatmodel.EnvBaseURL)
		case r == readoutLogprobs && strings.Contains(strings.ToLower(msg), "logprob"):
			return fault{final: true, outcome: Failed, err: errNoLogprobs}
		default:
			return misconfigured(chatmodel.EnvModel, msg, "the provider rejected the call (%d)", status)
		}
	}
	if ctx.Err() != nil {
		return fault{final: true, outcome: Failed, err: a.budgetGone(ctx, "timeout", 0)}
	}
	if chatmodel.IsUnreachable(err) {
		return misconfigured(chatmodel.EnvBaseURL, a.redact(err.Error()), "the provider at %s cannot be reached", chatmodel.EnvBaseURL)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fault{outcome: Failed, reason: "call timeout"}
	}
	a.cfg.logger.Debug("upstream call failed", "model", a.cfg.llm.Model, "err", a.redact(err.Error()))
	return fault{outcome: Failed, reason: "transport error"}
}

// redact removes the key from provider text that is about to be logged or
// returned.
func (a *Adapter) redact(s string) string {
	return chatmodel.Excerpt(a.cfg.llm.Redact(s))
}
