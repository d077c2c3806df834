package offline

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/judgeworks/interview"
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
	// A trade-off weighs options: a sentence that sets one thing against
	// another (contrastCues) and names what it costs or gains (costWords).
	// A hedge ("I'm not sure, but I think I'd try a few things") sets
	// nothing against anything, and "it depends" names no cost.
	contrastCues = phrases("but", "however", "whereas", "while", "although", "though", "on the other hand", "at the cost of",
		"at the expense of", "in exchange", "in return", "versus", "vs", "compared to", "compared with", "instead of",
		"rather than", "unlike", "trade off", "tradeoff", "downside", "drawback", "the catch", "the price", "pros", "cons")
	costWords = phrases("cost", "expensive", "cheap", "slow", "fast", "quick", "speed", "latency", "overhead", "complex",
		"complexity", "simple", "hard", "harder", "easy", "easier", "memory", "storage", "disk", "cpu", "bandwidth",
		"throughput", "consisten", "availab", "durab", "accura", "precision", "recall", "risk", "safe", "stale", "scal",
		"maintain", "maintenance", "effort", "time", "money", "budget", "burst", "lose", "gain", "weak", "strong",
		"lock in", "flexib", "control", "downtime", "coupling", "isolation", "readab", "reliab", "secur", "privacy",
		"bias", "variance", "load", "traffic", "extra", "fewer", "more", "less", "lower", "higher", "bigger", "smaller",
		"idempot", "cacheable", "bookmark", "retry", "portab", "testab", "boilerplate", "verbose")
	// hedges are what an answer says when it does not know; a sentence
	// with one weighs nothing, whatever else it holds.
	hedges = phrases("not sure", "not totally sure", "not certain", "no idea", "dont know", "see what works",
		"it depends", "a few things", "try things")
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
	foundKeyword = "keyword" // a sentence that says something holds one of its keywords
	foundMeaning = "meaning" // a sentence says it in other words
	foundPartly  = "partly"  // a sentence comes near it
	foundNamed   = "named"   // a sentence names it and says nothing about it ("Use Redis.")
	foundEarlier = "earlier" // a follow-up's point that an earlier answer covered
)

// A point is covered only where the answer says something about it. A
// sentence (or pair read together) of fewer than minSaying content words
// names things ("Use Redis.", "I'd use RICE scoring."): a keyword there
// only names the point (namedCredit, touched on), and a match in other
// words there touches it at most (namingMeaning).
const (
	minSaying   = 4
	namedCredit = 0.4
	// namingMeaning is the highest meaning score a sentence that names
	// things keeps: halfway between meaningFloor and meaningFull.
	namingMeaning = (meaningFloor + meaningFull) / 2
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
	// Each key point is in Covered, Partly (touched on or named, not made
	// explicit; Named lists those only named), Untouched or, for a
	// follow-up, Earlier (covered by an earlier answer); Missed is Partly
	// and Untouched, in order.
	Covered, Partly, Named, Untouched, Missed, Earlier []string
	Words                                              int
	Sentences                                          int
	HasExample                                         bool
	StepMarkers                                        int
	HasNumber                                          bool
	Tools                                              int
	HasTradeoff                                        bool

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
		pr := a.find(p)
		credit += pr.Credit
		a.Points = append(a.Points, pr)
	}
	a.list()
	a.Words = len(strings.Fields(answer))
	a.Sentences = sentences(answer)
	a.HasExample = exampleMarkers.count(toks) > 0 || dated.MatchString(answer)
	a.StepMarkers = stepMarkers.count(toks) + len(listItem.FindAllStringIndex(answer, -1))
	a.HasNumber = hasDigit(toks)
	a.Tools = toolNames.count(toks)
	a.HasTradeoff = len(a.tradeoffs()) > 0

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
	a.Score = overall(a.Technical, a.Communication)
	return a
}

func overall(technical, communication int) int {
	return int(math.Round(weightTechnical*float64(technical) + weightComm*float64(communication)))
}

// says reports whether sentences sp say something: at least minSaying
// content words.
func (a assessment) says(sp span) bool { return a.text.ContentWords(sp.first, sp.last) >= minSaying }

// find is how the answer fares on p: covered by a keyword in a sentence
// that says something, or by a sentence saying it in other words; named
// or touched on; or not at all.
func (a assessment) find(p point) pointResult {
	pr := pointResult{Label: p.Label}
	var named []span
	for i, st := range a.sentTokens {
		if !p.phrases.in(st) {
			continue
		}
		if a.says(span{i, i}) {
			pr.Spans = append(pr.Spans, span{i, i})
		} else {
			named = append(named, span{i, i})
		}
	}
	if len(pr.Spans) > 0 {
		pr.Found, pr.Credit = foundKeyword, 1
		return pr
	}
	best := relevance.Match{Sentence: -1}
	for _, ph := range p.meaning {
		m := a.text.Best(ph)
		if !a.says(span{m.First, m.Last}) {
			m.Score = min(m.Score, namingMeaning)
		}
		if m.Score > best.Score {
			best = m
		}
	}
	pr.Meaning = best.Score
	pr.Credit = math.Max(0, math.Min(1, (best.Score-meaningFloor)/(meaningFull-meaningFloor)))
	switch {
	case pr.Credit >= 1:
		pr.Found = foundMeaning
	case len(named) > 0:
		pr.Found, pr.Credit, pr.Spans = foundNamed, math.Max(pr.Credit, namedCredit), named
		return pr
	case pr.Credit > 0:
		pr.Found = foundPartly
	}
	if pr.Credit > 0 {
		// What says it: one sentence, or a pair read together.
		pr.Spans = []span{{best.First, best.Last}}
	}
	return pr
}

// list files every point under its state.
func (a *assessment) list() {
	a.Covered, a.Partly, a.Named, a.Untouched, a.Missed, a.Earlier = nil, nil, nil, nil, nil, nil
	for _, p := range a.Points {
		switch p.Found {
		case foundKeyword, foundMeaning:
			a.Covered = append(a.Covered, p.Label)
		case foundEarlier:
			a.Earlier = append(a.Earlier, p.Label)
		case foundPartly, foundNamed:
			a.Partly = append(a.Partly, p.Label)
			a.Missed = append(a.Missed, p.Label)
			if p.Found == foundNamed {
				a.Named = append(a.Named, p.Label)
			}
		default:
			a.Untouched = append(a.Untouched, p.Label)
			a.Missed = append(a.Missed, p.Label)
		}
	}
}

// with is a, a follow-up's answer, read with whole, everything said on its
// main question, this answer included: a point whole covers and a does
// not was covered earlier, and technical accuracy is what the answers
// show together. Everything else stays a's own.
func (a assessment) with(whole assessment) assessment {
	a.Points = slices.Clone(a.Points)
	for i := range a.Points {
		p, w := &a.Points[i], whole.Points[i]
		if p.Found != foundKeyword && p.Found != foundMeaning && (w.Found == foundKeyword || w.Found == foundMeaning) {
			p.Found, p.Credit, p.Spans = foundEarlier, w.Credit, nil
		}
	}
	a.list()
	a.Technical = max(a.Technical, whole.Technical)
	a.Score = overall(a.Technical, a.Communication)
	return a
}

// tradeoffs lists the sentences that weigh options: one thing set against
// another (a contrast), with what it costs or gains, in that sentence or
// the one before ("A fixed window is simple; however, it lets a client
// send twice the limit"), and no hedge. It is the one reading of a
// trade-off, for scoring and for asking about one that is missing.
func (a assessment) tradeoffs() []span {
	var out []span
	for i, st := range a.sentTokens {
		if !contrastCues.in(st) || hedges.in(st) {
			continue
		}
		switch {
		case costWords.in(st):
			out = append(out, span{i, i})
		case i > 0 && costWords.in(a.sentTokens[i-1]) && !hedges.in(a.sentTokens[i-1]):
			out = append(out, span{i - 1, i})
		}
	}
	return out
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
	evidence                []interview.Evidence
}

func (w *written) strength(point, quote string) {
	w.strengths = append(w.strengths, point)
	w.cite(interview.Strength, point, quote)
}

func (w *written) improvement(point, quote string) {
	w.improvements = append(w.improvements, point)
	w.cite(interview.Improvement, point, quote)
}

func (w *written) cite(kind, point, quote string) {
	if quote == "" || w.quoted(quote) {
		return
	}
	w.evidence = append(w.evidence, interview.Evidence{Kind: kind, Point: point, Quote: quote})
}

// quoted reports whether q shows words a quote of w shows already.
func (w *written) quoted(q string) bool {
	return slices.ContainsFunc(w.evidence, func(e interview.Evidence) bool { return interviewer.Overlap(e.Quote, q) })
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

// examples lists the sentences that give an example: a marker ("for
// example", "at my last job") or a date.
func (a assessment) examples() []span {
	var out []span
	for i, st := range a.sentTokens {
		if exampleMarkers.in(st) || dated.MatchString(a.text.Quote(i)) {
			out = append(out, span{i, i})
		}
	}
	return out
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
func (a assessment) feedback(total int, story []storyPart) written {
	var w written
	var b strings.Builder
	var other []string
	for _, p := range a.Points {
		if p.Found == foundMeaning {
			other = append(other, p.Label)
		}
	}
	switch {
	case len(a.Covered) == 0 && len(a.Earlier) > 0:
		fmt.Fprintf(&b, "This answer adds none of the %d key points. ", total)
	case len(a.Covered) == 0:
		fmt.Fprintf(&b, "The answer covers none of the %d key points. ", total)
	default:
		fmt.Fprintf(&b, "Covered %d of %d key points: %s. ", len(a.Covered), total, strings.Join(a.Covered, "; "))
	}
	if len(other) > 0 {
		fmt.Fprintf(&b, "Said in other words than the usual terms: %s. ", strings.Join(other, "; "))
	}
	if len(a.Earlier) > 0 {
		fmt.Fprintf(&b, "Already covered in the earlier answers: %s. ", strings.Join(a.Earlier, "; "))
	}
	if touched := slices.DeleteFunc(slices.Clone(a.Partly), func(l string) bool { return slices.Contains(a.Named, l) }); len(touched) > 0 {
		fmt.Fprintf(&b, "Touched on but not made explicit: %s. ", strings.Join(touched, "; "))
	}
	if len(a.Named) > 0 {
		fmt.Fprintf(&b, "Named but not explained: %s. ", strings.Join(a.Named, "; "))
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
	// Then the parts of a story: what the answer tells, what it leaves out.
	for _, p := range story {
		switch {
		case len(p.spans) > 0:
			w.strength(p.told, w.free(a, p.spans))
		case !p.earlier:
			w.improvement(p.ask, "")
		}
	}
	for _, p := range a.Points {
		switch p.Found {
		case foundPartly:
			w.improvement("Cover: "+p.Label, w.free(a, p.Spans))
		case foundNamed:
			w.improvement("Explain, do not only name: "+p.Label, w.free(a, p.Spans))
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
		w.strength("Gave a concrete example", w.free(a, a.examples()))
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
		w.strength("Discussed trade-offs", w.free(a, a.tradeoffs()))
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
