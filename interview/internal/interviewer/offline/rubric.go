package offline

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/judgeworks/interview/internal/interviewer"
	"github.com/judgeworks/interview/internal/interviewer/relevance"
	"github.com/judgeworks/shared/words"
)

// Rubric weights. docs/interviewer.md explains each one; change both together.
const (
	weightCoverage    = 0.85 // technical accuracy: share of key points covered
	weightSpecificTA  = 0.15 // technical accuracy: specificity, only once a point is covered
	fullLengthWords   = 30   // below this, technical accuracy is scaled down (too short to show knowledge)
	weightStructure   = 0.5  // communication
	weightLength      = 0.3  // communication
	weightSpecificCom = 0.2  // communication
	offTopicCommCap   = 40   // communication cap when no key point is covered
	weightTechnical   = 0.7  // overall score
	weightComm        = 0.3  // overall score
)

var (
	exampleMarkers = phrases("for example", "for instance", "e.g", "such as", "in my last", "in my previous",
		"at my last", "at my previous", "in one project", "in a previous", "i once", "we once", "suppose", "imagine", "let's say", "say we")
	stepMarkers = phrases("first", "firstly", "second", "secondly", "third", "then", "next", "finally", "lastly",
		"step", "afterwards", "after that", "because", "so that", "therefore", "which means", "as a result", "since")
	// "It depends" alone weighs nothing: it is what a vague answer says.
	tradeoffMarkers = phrases("trade off", "tradeoff", "trade-off", "however", "but", "downside", "drawback",
		"on the other hand", "versus", "vs", "pros", "cons", "whereas", "instead", "at the cost", "risk", "cost")
	// A short, deliberately incomplete list: naming a real tool, product or
	// protocol is a sign of hands-on experience, whichever family.
	toolNames = phrases("postgres", "postgresql", "mysql", "sqlite", "redis", "memcached", "kafka", "rabbitmq", "sqs",
		"kubernetes", "k8s", "docker", "terraform", "ansible", "helm", "prometheus", "grafana", "datadog", "sentry",
		"jenkins", "github actions", "gitlab", "git", "linux", "nginx", "envoy", "aws", "gcp", "azure", "s3", "ec2",
		"react", "vue", "angular", "svelte", "next.js", "webpack", "vite", "typescript", "javascript", "python", "java",
		"golang", "rust", "kotlin", "swift", "swiftui", "flutter", "spark", "flink", "airflow", "dbt", "snowflake",
		"bigquery", "redshift", "pandas", "numpy", "pytorch", "tensorflow", "scikit-learn", "sklearn", "xgboost",
		"mlflow", "jupyter", "mongodb", "cassandra", "dynamodb", "elasticsearch", "graphql", "grpc", "oauth", "jwt",
		"http", "tcp", "tls", "dns", "sql", "jira", "figma", "amplitude", "mixpanel", "looker", "tableau",
		"selenium", "playwright", "cypress", "jest", "pytest", "junit", "appium", "espresso", "xcuitest", "k6", "jmeter",
		"opentelemetry", "istio", "vault", "lighthouse", "xcode", "android studio", "firebase")
	listItem = regexp.MustCompile(`(?m)^\s*(\d+[.)]|[-*•])\s+\S`)
)

// How a key point was found in an answer.
const (
	foundKeyword = "keyword" // one of its keywords occurs
	foundMeaning = "meaning" // a sentence says it in other words
	foundPartly  = "partly"  // a sentence comes near it
)

// Matching by meaning: a point's meaning score (how much of its label or of
// one keyword a sentence says, see relevance.Text.Best) earns no credit up
// to meaningFloor, full credit from meaningFull, and a share between.
// Chosen on the development answers in meaning_dev_test.go; docs/interviewer.md
// gives the figures.
const (
	meaningFloor = 0.2
	meaningFull  = 0.5
)

// pointResult is how one key point fared.
type pointResult struct {
	Label   string
	Found   string  // foundKeyword, foundMeaning, foundPartly or ""
	Credit  float64 // 0 to 1
	Meaning float64 // the best meaning score, for the record
	// Spans are the places of the answer that say it, best first: each
	// sentence holding one of its keywords, or the sentence (or pair of
	// neighbours) that says it in other words. A point is credited only
	// by something a sentence says, and its quote is one of these.
	Spans []span
}

// span is sentences first to last of an answer.
type span struct{ first, last int }

// assessment is every measurement behind one evaluation, kept so the
// feedback can say exactly why a score is what it is.
type assessment struct {
	Points []pointResult
	// Each key point is in Covered, Partly (touched on, not made
	// explicit) or Untouched; Missed is Partly and Untouched, in order.
	Covered, Partly, Untouched, Missed []string
	Words                              int
	Sentences                          int
	HasExample                         bool
	StepMarkers                        int
	HasNumber                          bool
	Tools                              int
	HasTradeoff                        bool

	Coverage, Structure, Specificity, LengthFit float64

	Technical, Communication, Score int

	text relevance.Text
	// sentence tokens, for finding which sentence holds a keyword or marker
	sentTokens []words.Passage
}

// assess scores answer against the key points, reading meaning with rd.
func assess(rd *relevance.Reader, points []point, answer string) assessment {
	toks := read(answer)
	a := assessment{text: rd.Read(answer)}
	for _, sn := range a.text.Sentences {
		a.sentTokens = append(a.sentTokens, read(answer[sn.Start:sn.End]))
	}
	credit := 0.0
	for _, p := range points {
		pr := pointResult{Label: p.Label}
		for i, st := range a.sentTokens {
			if p.phrases.in(st) {
				pr.Spans = append(pr.Spans, span{i, i})
			}
		}
		if len(pr.Spans) > 0 {
			pr.Found, pr.Credit = foundKeyword, 1
		} else {
			best := relevance.Match{Sentence: -1}
			for _, ph := range p.meaning {
				if m := a.text.Best(ph); m.Score > best.Score {
					best = m
				}
			}
			pr.Meaning = best.Score
			pr.Credit = math.Max(0, math.Min(1, (best.Score-meaningFloor)/(meaningFull-meaningFloor)))
			switch {
			case pr.Credit >= 1:
				pr.Found = foundMeaning
			case pr.Credit > 0:
				pr.Found = foundPartly
			}
			if pr.Credit > 0 {
				// What says it: one sentence, or a pair read together.
				pr.Spans = []span{{best.First, best.Last}}
			}
		}
		credit += pr.Credit
		switch pr.Found {
		case foundKeyword, foundMeaning:
			a.Covered = append(a.Covered, p.Label)
		case foundPartly:
			a.Partly = append(a.Partly, p.Label)
			a.Missed = append(a.Missed, p.Label)
		default:
			a.Untouched = append(a.Untouched, p.Label)
			a.Missed = append(a.Missed, p.Label)
		}
		a.Points = append(a.Points, pr)
	}
	a.Words = len(strings.Fields(answer))
	a.Sentences = sentences(answer)
	a.HasExample = exampleMarkers.count(toks) > 0
	a.StepMarkers = stepMarkers.count(toks) + len(listItem.FindAllStringIndex(answer, -1))
	a.HasNumber = hasDigit(toks)
	a.Tools = toolNames.count(toks)
	a.HasTradeoff = tradeoffMarkers.count(toks) > 0

	if len(points) > 0 {
		a.Coverage = credit / float64(len(points))
	}
	a.Specificity = 0.35*b2f(a.HasNumber) + 0.35*math.Min(1, float64(a.Tools)/2) + 0.3*b2f(a.HasTradeoff)
	a.Structure = 0.4*sentenceScore(a.Sentences) + 0.3*b2f(a.HasExample) + 0.3*math.Min(1, float64(a.StepMarkers)/2)
	a.LengthFit = lengthFit(a.Words)

	// Square root: a correct one-liner keeps some credit, three keywords do not pass for an answer.
	brevity := math.Sqrt(math.Min(1, float64(a.Words)/fullLengthWords))
	specific := 0.0
	if credit > 0 {
		// Specifics about the wrong subject are not technical accuracy.
		specific = a.Specificity
	}
	a.Technical = pct(brevity * (weightCoverage*a.Coverage + weightSpecificTA*specific))
	a.Communication = pct(weightStructure*a.Structure + weightLength*a.LengthFit + weightSpecificCom*a.Specificity)
	if len(a.Covered) == 0 && a.Communication > offTopicCommCap {
		a.Communication = offTopicCommCap
	}
	a.Score = int(math.Round(weightTechnical*float64(a.Technical) + weightComm*float64(a.Communication)))
	return a
}

// sentenceWith returns the first sentence holding one of the phrases, or -1.
func (a assessment) sentenceWith(list phraseList) int {
	for i, st := range a.sentTokens {
		if list.in(st) {
			return i
		}
	}
	return -1
}

func sentenceScore(n int) float64 {
	switch {
	case n <= 0:
		return 0
	case n == 1:
		return 0.4
	case n == 2:
		return 0.7
	default:
		return 1
	}
}

// lengthFit rewards answers of roughly 40–250 words: shorter ones cannot
// explain much, much longer ones lose the listener.
func lengthFit(words int) float64 {
	switch {
	case words < 40:
		return float64(words) / 40
	case words <= 250:
		return 1
	case words <= 450:
		return 1 - 0.5*float64(words-250)/200
	default:
		return 0.5
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func pct(x float64) int {
	return int(math.Round(100 * math.Max(0, math.Min(1, x))))
}

// written is the prose, the lists and the evidence of one evaluation.
// Each quote stands under one bullet at most (interviewer.Overlap).
type written struct {
	text                    string
	strengths, improvements []string
	evidence                []interviewer.Evidence
}

func (w *written) strength(point, quote string) {
	w.strengths = append(w.strengths, point)
	w.cite(interviewer.Strength, point, quote)
}

func (w *written) improvement(point, quote string) {
	w.improvements = append(w.improvements, point)
	w.cite(interviewer.Improvement, point, quote)
}

func (w *written) cite(kind, point, quote string) {
	if quote == "" || w.quoted(quote) {
		return
	}
	w.evidence = append(w.evidence, interviewer.Evidence{Kind: kind, Point: point, Quote: quote})
}

// quoted reports whether q shows words a quote of w shows already.
func (w *written) quoted(q string) bool {
	return slices.ContainsFunc(w.evidence, func(e interviewer.Evidence) bool { return interviewer.Overlap(e.Quote, q) })
}

// free is the quote of the first of spans not quoted yet, "" for none.
func (w *written) free(a assessment, spans []span) string {
	for _, sp := range spans {
		if q := a.quoteSpan(sp); q != "" && !w.quoted(q) {
			return q
		}
	}
	return ""
}

// quote is sentence i of the answer, cut at a word boundary to fit a
// quote; "" for no sentence.
func (a assessment) quote(i int) string { return a.quoteSpan(span{i, i}) }

// quoteSpan is sentences sp of the answer, cut to fit a quote.
func (a assessment) quoteSpan(sp span) string {
	if sp.first < 0 || sp.last < sp.first || sp.last >= len(a.text.Sentences) {
		return ""
	}
	q := a.text.Span(sp.first, sp.last)
	if utf8.RuneCountInString(q) <= interviewer.MaxQuoteRunes {
		return q
	}
	r := []rune(q)[:interviewer.MaxQuoteRunes]
	if j := strings.LastIndexFunc(string(r), unicode.IsSpace); j > 0 {
		return strings.TrimSpace(string(r)[:j])
	}
	return string(r)
}

// sentencesWith lists the sentences holding one of the phrases.
func (a assessment) sentencesWith(list phraseList) []span {
	var out []span
	for i, st := range a.sentTokens {
		if list.in(st) {
			out = append(out, span{i, i})
		}
	}
	return out
}

// feedback turns an assessment into the prose, lists and evidence the
// candidate sees. Each key point has one state: covered (quoting what says
// it), touched on (quoting the sentence that comes near it, with its
// improvement) or missed (no quote: no sentence of the answer holds it).
// A quote stands under one bullet at most; a point whose sentences are
// all quoted already is listed without one.
func (a assessment) feedback(total int) written {
	var w written
	var b strings.Builder
	var other []string
	for _, p := range a.Points {
		if p.Found == foundMeaning {
			other = append(other, p.Label)
		}
	}
	switch {
	case len(a.Covered) == 0:
		fmt.Fprintf(&b, "The answer covers none of the %d key points. ", total)
	default:
		fmt.Fprintf(&b, "Covered %d of %d key points: %s. ", len(a.Covered), total, strings.Join(a.Covered, "; "))
	}
	if len(other) > 0 {
		fmt.Fprintf(&b, "Said in other words than the usual terms: %s. ", strings.Join(other, "; "))
	}
	if len(a.Partly) > 0 {
		fmt.Fprintf(&b, "Touched on but not made explicit: %s. ", strings.Join(a.Partly, "; "))
	}
	if len(a.Untouched) > 0 {
		fmt.Fprintf(&b, "Missed: %s. ", strings.Join(a.Untouched, "; "))
	}
	// Covered points choose their quotes first: a sentence that says one
	// point and comes near another quotes the one it says.
	for _, p := range a.Points {
		if p.Found == foundKeyword || p.Found == foundMeaning {
			w.strength("Covered: "+p.Label, w.free(a, p.Spans))
		}
	}
	for _, p := range a.Points {
		switch p.Found {
		case foundPartly:
			w.improvement("Cover: "+p.Label, w.free(a, p.Spans))
		case "":
			w.improvement("Cover: "+p.Label, "")
		}
	}
	switch {
	case a.Words < 15:
		b.WriteString("The answer is very short; explain your reasoning in a few full sentences. ")
		w.improvement("Answer in a few full sentences, not a phrase", "")
	case a.Words < 40:
		b.WriteString("The answer is brief; 60 to 200 words leaves room for reasoning and an example. ")
	case a.Words > 250:
		fmt.Fprintf(&b, "At %d words the answer is long; lead with the main point and cut repetition. ", a.Words)
		w.improvement("Tighten the answer: main point first, then details", "")
	}
	if a.HasExample {
		w.strength("Gave a concrete example", w.free(a, a.sentencesWith(exampleMarkers)))
	} else {
		b.WriteString("No concrete example was given. ")
		w.improvement("Illustrate with a concrete example from experience", "")
	}
	if a.StepMarkers >= 2 {
		w.strength("Explained the reasoning in clear steps", "")
	}
	if a.HasNumber || a.Tools > 0 {
		spans := a.sentencesWith(toolNames)
		for i, st := range a.sentTokens {
			if hasDigit(st) {
				spans = append(spans, span{i, i})
			}
		}
		w.strength("Specific: named tools or gave numbers", w.free(a, spans))
	} else {
		w.improvement("Name the tools you would use and give numbers where they matter", "")
	}
	if a.HasTradeoff {
		w.strength("Discussed trade-offs", w.free(a, a.sentencesWith(tradeoffMarkers)))
	} else {
		b.WriteString("Trade-offs were not discussed. ")
		w.improvement("Discuss trade-offs and when you would choose differently", "")
	}
	w.text = strings.TrimSpace(b.String())
	w.strengths = nonNil(capList(w.strengths, 8))
	w.improvements = nonNil(capList(w.improvements, 8))
	return w
}

func capList(l []string, n int) []string {
	if len(l) > n {
		return l[:n]
	}
	return l
}
