package main_test

// Black-box tests of upstream providers: a judge fronting a second judge
// process over System One (both built from source), fallback from failing
// upstreams, a Decisions upstream (a local server speaking the wire format
// of openai-go's decision.go), option order on every engine, and the
// document alias of state.

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/judgeworks/shared/calibrate"
	"github.com/judgeworks/shared/systemone"
)

// Keys of at least 32 characters: a judge with a models file or a
// language model refuses shorter ones.
const (
	frontKey = "front-key-0123456789abcdef0123456789"
	peerKey  = "peer-key-0123456789abcdef01234567890"
)

type answer struct {
	Type          string             `json:"type"`
	Noul          *float64           `json:"noul"`
	Choice        string             `json:"choice"`
	Score         *float64           `json:"score"`
	Probabilities map[string]float64 `json:"probabilities"`
	Confidence    *float64           `json:"confidence"`
}

type response struct {
	Model   string            `json:"model"`
	Answers map[string]answer `json:"answers"`
	Usage   struct {
		InputTokens int     `json:"input_tokens"`
		Cost        float64 `json:"cost"`
	} `json:"usage"`
}

func decodeResponse(t *testing.T, r result) response {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	var resp response
	if err := json.Unmarshal(r.body, &resp); err != nil {
		t.Fatalf("%v in %s", err, r.body)
	}
	return resp
}

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// withModel is the good request asking model.
func withModel(model string) string {
	return strings.Replace(good, `"model": "local/lexical-latest"`, `"model": "`+model+`"`, 1)
}

// startPeer starts a second judge, offline, serving local/semantic-latest.
func startPeer(t *testing.T, env ...string) *judge {
	return start(t, append([]string{"JUDGE_API_KEYS=" + peerKey, "JUDGE_RATE_LIMIT_RPM=100000"}, env...)...)
}

// A judge whose models file points at a second judge answers with the
// peer's engine, names the version that answered, and applies its own
// calibration file to the peer's distributions as the math says:
// pᵢ ∝ pᵢ^(1/T) per question type.
func TestFrontJudgeCalibratesAPeerJudge(t *testing.T) {
	peer := startPeer(t)
	models := writeFile(t, "models.yaml", `models:
  - name: judge-1.0
    aliases: [judge-latest]
    price_per_million: 1
    providers:
      - {api: systemone, base_url: "`+peer.url+`", api_key_env: PEER_KEY, model: local/semantic-latest}
`)
	temps := map[string]float64{"choice": 0.5, "noul": 3}
	cal := writeFile(t, "calibration.json", "")
	if err := (calibrate.File{Version: calibrate.FileVersion, Models: map[string]calibrate.Model{
		"local/semantic-latest": {Temperatures: temps},
	}}).Save(cal); err != nil {
		t.Fatal(err)
	}
	front := start(t, "JUDGE_API_KEYS="+frontKey, "JUDGE_RATE_LIMIT_RPM=100000", "JUDGE_MODELS_FILE="+models,
		"PEER_KEY="+peerKey, "JUDGE_CALIBRATION_FILE="+cal)

	direct := decodeResponse(t, peer.ask(t, peerKey, withModel("local/semantic-latest")))
	got := decodeResponse(t, front.ask(t, frontKey, withModel("judge-latest")))
	if got.Model != "judge-1.0/"+direct.Model || !strings.HasPrefix(direct.Model, "local/semantic-") {
		t.Errorf("front answered as %q, peer as %q; want judge-1.0/ and the peer's exact version", got.Model, direct.Model)
	}
	// The usage is the peer's count of what the front sent it: the team's
	// options under neutral ids, in canonical order (docs/api.md,
	// "Coherence").
	forwarded := withModel("local/semantic-latest")
	for i, o := range systemone.CanonicalOptions([]systemone.Option{
		{Name: "billing", Description: json.RawMessage(`"Payments, invoices, refunds and charges"`)},
		{Name: "technical", Description: json.RawMessage(`"Bugs, errors, crashes and login problems"`)},
	}) {
		forwarded = strings.Replace(forwarded, `"`+o.Name+`":`, fmt.Sprintf(`"o%d":`, i+1), 1)
	}
	sentTokens := decodeResponse(t, peer.ask(t, peerKey, forwarded)).Usage.InputTokens
	if got.Usage.InputTokens != sentTokens || math.Abs(got.Usage.Cost-float64(got.Usage.InputTokens)/1e6) > 1e-15 {
		t.Errorf("usage %+v: want the peer's %d tokens at the front's price", got.Usage, sentTokens)
	}
	// Choice at T = 0.5: the squares, renormalised; sharper than the peer's.
	sum := 0.0
	for _, p := range direct.Answers["team"].Probabilities {
		sum += p * p
	}
	for name, p := range direct.Answers["team"].Probabilities {
		want := p * p / sum
		if g := got.Answers["team"].Probabilities[name]; math.Abs(g-want) > 1e-12 || math.Abs(g-p) < 1e-4 {
			t.Errorf("p(%s) = %v, want %v (peer %v)", name, g, want, p)
		}
	}
	// Noul at T = 3: p^(1/3) against (1-p)^(1/3).
	p := *direct.Answers["refund"].Noul
	want := math.Cbrt(p) / (math.Cbrt(p) + math.Cbrt(1-p))
	if g := *got.Answers["refund"].Noul; math.Abs(g-want) > 1e-12 || math.Abs(g-p) < 1e-4 {
		t.Errorf("noul %v, want %v (peer %v)", g, want, p)
	}
	// Score has no temperature: the peer's answer, as it was given.
	for k, p := range direct.Answers["anger"].Probabilities {
		if got.Answers["anger"].Probabilities[k] != p {
			t.Errorf("score p(%s) = %v, want the peer's %v", k, got.Answers["anger"].Probabilities[k], p)
		}
	}
}

// A failing provider (503, or nothing listening) is skipped for the next
// one; a request the next one refuses as the caller's comes back as that
// refusal, and the providers after it are not asked.
func TestFrontJudgeFallsBack(t *testing.T) {
	peer := startPeer(t, "JUDGE_MAX_QUESTIONS=2")
	var down, spare atomic.Int32
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		down.Add(1)
		w.Header().Set("Retry-After", "1")
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
	}))
	defer failing.Close()
	spareSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		spare.Add(1)
		http.Error(w, "the spare should not be asked", http.StatusInternalServerError)
	}))
	defer spareSrv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String()
	ln.Close()
	models := writeFile(t, "models.yaml", fmt.Sprintf(`models:
  - name: judge-1.0
    aliases: [judge-latest]
    providers:
      - {api: systemone, base_url: %q, api_key_env: PEER_KEY, model: local/semantic-latest}
      - {api: systemone, base_url: %q, api_key_env: PEER_KEY, model: local/semantic-latest}
      - {api: systemone, base_url: %q, api_key_env: PEER_KEY, model: local/semantic-latest}
      - {api: systemone, base_url: %q, api_key_env: PEER_KEY, model: local/semantic-latest}
`, failing.URL, refused, peer.url, spareSrv.URL))
	front := start(t, "JUDGE_API_KEYS="+frontKey, "JUDGE_RATE_LIMIT_RPM=100000", "JUDGE_MODELS_FILE="+models, "PEER_KEY="+peerKey)

	two := `{"model": "judge-latest", "state": "I was charged twice. Refund me!", "questions": {
	  "refund": {"type": "noul", "instructions": "Is a refund asked for?"},
	  "anger": {"type": "score", "instructions": "How angry?", "criteria": ["calm", "angry"]}}}`
	got := decodeResponse(t, front.ask(t, frontKey, two))
	if !strings.HasPrefix(got.Model, "judge-1.0/local/semantic-") || len(got.Answers) != 2 {
		t.Errorf("answer %+v, want the peer's", got)
	}
	if down.Load() != 1 || spare.Load() != 0 {
		t.Errorf("the failing provider was asked %d times, the spare %d; want 1 and 0", down.Load(), spare.Load())
	}
	// Three questions: the peer allows two. Its validation error is the
	// caller's to fix, and goes back as it is.
	r := front.ask(t, frontKey, withModel("judge-latest"))
	if r.status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	var body validationBody
	if err := json.Unmarshal(r.body, &body); err != nil || len(body.Detail) == 0 || strings.Join(body.Detail[0].Loc, ".") != "body.questions" {
		t.Errorf("body %s, want the peer's validation list on body.questions", r.body)
	}
	if spare.Load() != 0 {
		t.Errorf("the spare was asked after the caller's error")
	}
}

var entryLine = regexp.MustCompile(`(?m)^([A-Z])\) (.*)$`)

// biasedChat is an OpenAI-compatible chat endpoint whose model favours
// the first labels it is shown, and reads them: a label's weight is its
// position's times a factor from its text. Shown in the caller's order,
// the same options would get different answers.
func biasedChat(t *testing.T) *httptest.Server {
	t.Helper()
	bias := []float64{0.40, 0.25, 0.15, 0.12, 0.08}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		user := req.Messages[len(req.Messages)-1].Content
		var tops []map[string]any
		entries := entryLine.FindAllStringSubmatch(user, -1)
		sum := 0.0
		weights := make([]float64, len(entries))
		for i, e := range entries {
			weights[i] = bias[i%len(bias)] * float64(1+len(e[2])%7)
			sum += weights[i]
		}
		for i, e := range entries {
			tops = append(tops, map[string]any{"token": e[1], "logprob": math.Log(weights[i] / sum * 0.97)})
		}
		if len(tops) == 0 { // a noul question
			tops = []map[string]any{{"token": "yes", "logprob": math.Log(0.7)}, {"token": "no", "logprob": math.Log(0.3)}}
		}
		head := map[string]any{"token": tops[0]["token"], "logprob": tops[0]["logprob"], "top_logprobs": tops}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": time.Now().Unix(), "model": "biased-2026",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message":  map[string]any{"role": "assistant", "content": tops[0]["token"]},
				"logprobs": map[string]any{"content": []any{head}}}},
			"usage": map[string]any{"prompt_tokens": 50, "completion_tokens": 1, "total_tokens": 51},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// biasedDecisions is OpenAI's POST /v1/decisions, as openai-go v3.96.0's
// decision.go reads it, with the same biased model; it refuses a question
// whose instructions say REFUSE.
func biasedDecisions(t *testing.T) *httptest.Server {
	t.Helper()
	bias := []float64{0.40, 0.25, 0.15, 0.12, 0.08}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/decisions" {
			http.NotFound(w, r)
			return
		}
		var req struct {
			Questions []struct {
				Type         string `json:"type"`
				Instructions string `json:"instructions"`
				Choices      []struct {
					Value string `json:"value"`
				} `json:"choices"`
				Levels []struct {
					Label string `json:"label"`
				} `json:"levels"`
			} `json:"questions"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil {
			t.Errorf("fake Decisions: %v in %s", err, body)
		}
		answers := []map[string]any{}
		for _, q := range req.Questions {
			switch {
			case strings.Contains(q.Instructions, "REFUSE"):
				answers = append(answers, map[string]any{"type": "refusal", "name": nil})
			case q.Type == "predicate":
				answers = append(answers, map[string]any{"type": "predicate", "name": nil, "probability": 0.7})
			case q.Type == "choice":
				probs := []map[string]any{}
				for i, c := range q.Choices {
					probs = append(probs, map[string]any{"value": c.Value, "probability": bias[i%5] * float64(1+len(c.Value)%7)})
				}
				answers = append(answers, map[string]any{"type": "choice", "name": nil, "choice": q.Choices[0].Value, "confidence": 0.5, "probabilities": probs})
			default:
				probs := []map[string]any{}
				for i, l := range q.Levels {
					probs = append(probs, map[string]any{"value": i, "label": l.Label, "probability": 1.0 / float64(len(q.Levels))})
				}
				answers = append(answers, map[string]any{"type": "score", "name": nil, "score": 1, "confidence": 0, "probabilities": probs})
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"answers": answers, "model": "gpt-6-luna-2026-05-01",
			"usage": map[string]any{"input_tokens": 80, "input_tokens_details": map[string]any{"cache_write_tokens": 0, "cached_tokens": 0},
				"output_tokens": 3, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 83}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The same five options in three orders get identical probabilities from
// every engine the judge serves, through /v1/systemone: the offline
// engines, a peer judge over System One, a Decisions upstream and a chat
// model, the last two biased to the top of a list.
func TestOptionOrderEveryEngine(t *testing.T) {
	peer := startPeer(t)
	chat := biasedChat(t)
	dec := biasedDecisions(t)
	models := writeFile(t, "models.yaml", `models:
  - name: judge-1.0
    aliases: [judge-latest]
    providers:
      - {api: systemone, base_url: "`+peer.url+`", api_key_env: PEER_KEY, model: local/semantic-latest}
  - name: luna-1.0
    aliases: [luna-latest]
    providers:
      - {api: decisions, base_url: "`+dec.URL+`/v1", api_key_env: OPENAI_KEY, model: gpt-6-luna}
`)
	front := start(t, "JUDGE_API_KEYS="+frontKey, "JUDGE_RATE_LIMIT_RPM=100000", "JUDGE_MODELS_FILE="+models,
		"PEER_KEY="+peerKey, "OPENAI_KEY=sk-test-openai", "LLM_BASE_URL="+chat.URL+"/v1", "LLM_API_KEY=sk-test-chat", "LLM_MODEL=biased")
	options := map[string]string{
		"billing":   "Payments, invoices, refunds and charges",
		"technical": "Bugs, errors, crashes and login problems",
		"sales":     "Quotes, upgrades and new plans",
		"legal":     "Contracts, terms and complaints about them",
		"security":  "Hacked accounts and suspicious logins",
	}
	orders := [][]string{
		{"billing", "technical", "sales", "legal", "security"},
		{"security", "legal", "sales", "technical", "billing"},
		{"sales", "billing", "security", "technical", "legal"},
	}
	body := func(model string, order []string) string {
		var crit []string
		for _, n := range order {
			crit = append(crit, fmt.Sprintf("%q: %q", n, options[n]))
		}
		return `{"model": "` + model + `", "state": "I was charged twice for my subscription. Refund me!",
		  "questions": {"team": {"type": "choice", "instructions": "Which team should handle it?", "criteria": {` + strings.Join(crit, ", ") + `}}}}`
	}
	for _, model := range []string{"local/lexical-latest", "local/semantic-latest", "judge-latest", "luna-latest", "llm-latest"} {
		var first answer
		for i, order := range orders {
			got := decodeResponse(t, front.ask(t, frontKey, body(model, order))).Answers["team"]
			if len(got.Probabilities) != 5 {
				t.Fatalf("%s: %+v", model, got)
			}
			if i == 0 {
				first = got
				continue
			}
			for name, p := range first.Probabilities {
				if got.Probabilities[name] != p {
					t.Errorf("%s, order %v: p(%s) = %v, want exactly %v", model, order, name, got.Probabilities[name], p)
				}
			}
			if got.Choice != first.Choice || *got.Confidence != *first.Confidence {
				t.Errorf("%s, order %v: %q (%v), want %q (%v)", model, order, got.Choice, *got.Confidence, first.Choice, *first.Confidence)
			}
		}
	}
	// A question the Decisions model refuses fails the request as the
	// caller's, naming the question.
	r := front.ask(t, frontKey, `{"model": "luna-latest", "state": "x", "questions": {
	  "ok": {"type": "noul", "instructions": "Is it a question?"},
	  "bad": {"type": "noul", "instructions": "REFUSE this one"}}}`)
	wantError(t, r, http.StatusBadRequest, "invalid_request")
	if !strings.Contains(string(r.body), `\"bad\"`) || !strings.Contains(string(r.body), "refused") {
		t.Errorf("refusal body %s does not name the question", r.body)
	}
}

// document, the older name of state, is accepted; both at once are 422
// naming document.
func TestDocumentAlias(t *testing.T) {
	j := start(t, keysEnv("good-key")...)
	viaState := j.ask(t, "good-key", good)
	viaDocument := j.ask(t, "good-key", strings.Replace(good, `"state":`, `"document":`, 1))
	decodeResponse(t, viaDocument)
	if string(viaDocument.body) != string(viaState.body) {
		t.Errorf("via document: %s\nvia state:    %s", viaDocument.body, viaState.body)
	}
	r := j.ask(t, "good-key", strings.Replace(good, `"state":`, `"document": "another text", "state":`, 1))
	if r.status != http.StatusUnprocessableEntity {
		t.Fatalf("both: status %d: %s", r.status, r.body)
	}
	var body validationBody
	if err := json.Unmarshal(r.body, &body); err != nil || len(body.Detail) != 1 ||
		strings.Join(body.Detail[0].Loc, ".") != "body.document" || !strings.Contains(body.Detail[0].Msg, "state") {
		t.Errorf("both: body %s, want one item on body.document", r.body)
	}
}
