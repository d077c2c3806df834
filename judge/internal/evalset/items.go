// Package evalset holds the judge's commands over labelled decision sets:
// `judge calibrate` (calibrate.go) fits the chat adapter's temperatures
// (shared/chatadapter, shared/calibrate) on labelled items. The items, their
// gold outcomes and the parallel asking of any systemone.Backend are here,
// for every such command. Each command gets its settings from the judge's
// config in main; none reads the environment.
package evalset

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/judgeworks/shared/calibrate"
	"github.com/judgeworks/shared/systemone"
)

// Item is one line of the labeled file: a state, one question about it and
// the right answer (noul: true or false; choice: the option name; score:
// the level index or the level text).
type Item struct {
	State    json.RawMessage    `json:"state"`
	Question systemone.Question `json:"question"`
	Answer   json.RawMessage    `json:"answer"`
}

// labeled is an item checked and ready: its request and gold outcome.
type labeled struct {
	line int
	req  systemone.Request
	gold int
}

func readItems(path string) ([]labeled, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var items []labeled
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		it, err := parseItem([]byte(line))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		it.line = n
		items = append(items, it)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("%s: no labeled items", path)
	}
	return items, nil
}

func parseItem(b []byte) (labeled, error) {
	var it Item
	if err := json.Unmarshal(b, &it); err != nil {
		return labeled{}, err
	}
	req := systemone.Request{Model: "calibration", State: it.State, Questions: map[string]systemone.Question{"q": it.Question}}
	if err := req.Validate(); err != nil {
		return labeled{}, err
	}
	gold, err := goldIndex(it.Question, it.Answer)
	if err != nil {
		return labeled{}, fmt.Errorf("answer: %w", err)
	}
	return labeled{req: req, gold: gold}, nil
}

// goldIndex is the index of the right outcome in the order of outcomes():
// noul yes 0, no 1; choice the option's position; score the level.
func goldIndex(q systemone.Question, raw json.RawMessage) (int, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil || v == nil {
		return 0, errors.New("missing or not JSON")
	}
	switch q.Type {
	case systemone.TypeNoul:
		switch v {
		case true, "yes", "true":
			return 0, nil
		case false, "no", "false":
			return 1, nil
		}
		return 0, fmt.Errorf("a noul answer is true or false, got %s", raw)
	case systemone.TypeChoice:
		if s, ok := v.(string); ok {
			for i, o := range q.Options {
				if o.Name == s {
					return i, nil
				}
			}
		}
		return 0, fmt.Errorf("a choice answer names one of the options, got %s", raw)
	case systemone.TypeScore:
		switch x := v.(type) {
		case float64:
			if i := int(x); float64(i) == x && i >= 0 && i < len(q.Levels) {
				return i, nil
			}
		case string:
			for i, l := range q.Levels {
				if l == x || strconv.Itoa(i) == x {
					return i, nil
				}
			}
		}
		return 0, fmt.Errorf("a score answer is a level index 0..%d or a level text, got %s", len(q.Levels)-1, raw)
	}
	return 0, fmt.Errorf("unknown question type %q", q.Type)
}

// outcomes is the answer as one probability per outcome, in goldIndex's order.
func outcomes(q systemone.Question, a systemone.Answer) ([]float64, error) {
	switch q.Type {
	case systemone.TypeNoul:
		if a.Noul == nil {
			return nil, errors.New("noul answer without a probability")
		}
		return []float64{*a.Noul, 1 - *a.Noul}, nil
	case systemone.TypeChoice:
		p := make([]float64, len(q.Options))
		for i, o := range q.Options {
			p[i] = a.Probabilities[o.Name]
		}
		return p, nil
	default:
		p := make([]float64, len(q.Levels))
		for i := range q.Levels {
			p[i] = a.Probabilities[strconv.Itoa(i)]
		}
		return p, nil
	}
}

// predict asks every item, parallel at most n at a time, and groups the
// predictions by question type.
func predict(ctx context.Context, b systemone.Backend, model string, items []labeled, n int) (map[systemone.QuestionType][]calibrate.Item, error) {
	outs, err := askAll(ctx, b, model, items, n)
	if err != nil {
		return nil, err
	}
	preds := map[systemone.QuestionType][]calibrate.Item{}
	for qt, group := range byType(outs) {
		preds[qt] = calibrationItems(group)
	}
	return preds, nil
}
