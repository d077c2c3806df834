package chat

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/judgeworks/judge/internal/engine"
	"github.com/judgeworks/judge/internal/engine/enginetest"
	"github.com/judgeworks/judge/internal/fairqueue"
	"github.com/judgeworks/shared/chatadapter"
)

// The chat engine keeps the structural coherence laws against a model
// that reads every word it is shown, in both choice modes; asked option
// by option it also keeps the odds between options whatever the menu.
func TestCoherence(t *testing.T) {
	t.Run("joint", func(t *testing.T) { enginetest.RunCoherence(t, textChat(t), enginetest.Coherence{}) })
	t.Run("apart", func(t *testing.T) {
		enginetest.RunCoherence(t, textChat(t, chatadapter.WithChoiceMode(chatadapter.ChoiceApart)), enginetest.Coherence{Apart: true})
	})
}

// fakeModel is an OpenAI-compatible chat endpoint whose answers are a
// fixed function of what each call shows: an entry's weight is a hash of
// its text, plus a bonus for the first place, as real models favour it.
// A name shown beside a description, or a duplicate asked twice, would
// change the answers; the menu changes them in a joint call.
type fakeModel struct {
	srv *httptest.Server
}

var entryLine = regexp.MustCompile(`(?m)^([A-Z0-9]+)\) (.*)$`)

func textChat(t *testing.T, opts ...chatadapter.Option) *Engine {
	t.Helper()
	f := &fakeModel{}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	base := []chatadapter.Option{
		chatadapter.WithProvider(f.srv.URL+"/v1", "test-key", "fake-model"),
		chatadapter.WithReadout(chatadapter.ReadoutProbabilities),
		chatadapter.WithLogger(slog.New(slog.DiscardHandler)),
	}
	e, err := New(engine.NewSlots(fairqueue.Config{Slots: 8, Queue: 64, MaxWait: time.Minute}, ""), append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func weight(s string) float64 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return 1 + float64(h.Sum32()%97)
}

func (f *fakeModel) serve(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Messages []struct{ Role, Content string }
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	var user string
	for _, m := range body.Messages {
		if m.Role == "user" {
			user = m.Content
		}
	}
	_, question, _ := strings.Cut(user, "</state>")
	entries := entryLine.FindAllStringSubmatch(question, -1)
	probs := map[string]float64{}
	if len(entries) == 0 {
		// A yes/no call: p(yes) from the whole question.
		p := weight(question) / 100
		probs["yes"], probs["no"] = p, 1-p
	} else {
		sum := 0.0
		for i, e := range entries {
			x := weight(e[2])
			if i == 0 {
				x += 20
			}
			probs[e[1]] = x
			sum += x
		}
		for k := range probs {
			probs[k] /= sum
		}
	}
	content, _ := json.Marshal(probs)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","created":1,"model":"fake-model-1","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":%q}}],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}}`, content)
}
