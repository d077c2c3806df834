package offline

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/judgeworks/interview"
)

// heldoutParaphrases are correct answers written in other words than the
// bank's key points, one per question, across the families. They were
// written before the rubric matched by meaning and were never used to tune
// it (the development answers in meaning_dev_test.go were).
var heldoutParaphrases = map[string]string{
	"backend-medium-02":          "Idempotent means that performing the call twice leaves the system exactly as performing it once. For a payment, the client generates a random identifier for the attempt and sends it along with the charge. The server records each identifier together with the outcome, and when an identifier it already knows arrives, it replies with the recorded outcome instead of charging again. This protects customers when an app resends a payment because a response got lost on a flaky connection.",
	"data-engineering-medium-01": "First every incoming file is copied unchanged into a storage area we never modify, so we can always go back to what was sent. Before loading, each file is checked against the expected columns and types, and files that fail are moved aside to a holding folder instead of breaking the run. The job polls for the file until a cutoff time rather than failing when it is missing at the usual hour. Loads overwrite the whole day's slice, so running a day again after a fix gives the same result. When something is missing or broken, the on-call engineer and the supplier get an email.",
	"devops-sre-medium-01":       "New pods replace old ones a few at a time, so there is always enough capacity serving traffic during the change. A pod only receives traffic after its health check says it is ready to serve. If the new version keeps crashing, you revert to the previous one with a single command, because the old configuration is kept. Declaring how much CPU and memory each pod needs lets the scheduler place them sensibly. For risky changes you can send a small share of users to the new version first.",
	"frontend-medium-03":         "I use the proper HTML tags for headings, lists and controls, every form field has a visible caption tied to it, and images get a text description. Everything must be usable without a mouse, with an obvious outline showing where you are. I only add extra accessibility attributes when native tags can't express the widget. Text must stand out clearly from its background for people with low vision. And I try the pages with VoiceOver and automated checkers.",
	"machine-learning-medium-04": "I start from what the company is trying to achieve with the model, because that decides what a mistake costs. For a fraud model, missing a fraudster and blocking an honest customer have very different prices, so I weigh those two kinds of errors. For predicting amounts I'd use average absolute error, for yes/no decisions something like area under the curve. The numbers on historical data should move together with what we see in a live split test. If downstream systems use the scores as likelihoods, I check that a predicted 0.8 really happens about 80 percent of the time.",
	"mobile-easy-01":             "A screen is built once, becomes visible, goes inactive when something covers it, and is finally torn down; the system calls a hook at each of those moments. Because the OS can kill it, you persist what the user typed and bring it back when the screen is recreated. When it is hidden you give up the camera, timers and listeners. Turning the phone sideways also recreates the screen on Android, so that data must survive it.",
	"qa-testing-medium-03":       "I check that each endpoint replies with the right code and that the returned payload has the expected fields and types. I send malformed or missing inputs and expect a clear client error. I call it without credentials and with a user who lacks rights, and expect a refusal. I verify the service still honours the agreed interface that consumers depend on. I write these checks in code with an HTTP client library so they run in the pipeline.",
	"backend-medium-05":          "It happens when code fetches a list of parents with one statement and then issues a separate statement to fetch the children of every parent. With a thousand parents that is a thousand and one trips to the database, and the page crawls. The fix is to get all the children in a single statement, either by combining the tables or by asking for all the parent ids at once. Most mapping libraries can also load the related records up front when you ask.",
	"devops-sre-easy-06":         "It sits in front of several copies of a service and hands each incoming request to one of them, so no single machine gets overwhelmed. It regularly pings every copy and stops sending requests to any that stop answering. That lets you add machines as traffic grows and keeps the site up when one dies. It can rotate through servers in turn or pick the one with the fewest open sessions. Some work on raw connections, others understand the web requests themselves and can route by path.",
	"frontend-easy-06":           "The page rearranges itself to fit anything from a small phone to a wide monitor. In the stylesheet you write rules that apply only above or below certain widths. Columns are sized in proportions of the available space instead of fixed pixels, so they stretch and shrink. You start with the narrow layout and add complexity for larger screens, and serve smaller images to small screens.",
	"machine-learning-easy-06":   "First I find out what causes the gaps, since values absent for a reason carry information. If few records are affected I can discard those records or a column that is mostly empty. Otherwise I fill the blanks with the average or the middle value of the column, or predict them from other columns. I also add a yes/no column recording that the value was absent, so the model can use that fact.",
	"product-management-easy-05": "How many people get the app from the store and create an account. How many of them reach the moment where they experience the core value, like sending their opening message. How many come back each day and week, and how many we lose over time. How much money we earn per user from subscriptions. And one guiding number that best captures the value users get, which the whole team rallies around.",
	"data-engineering-easy-06":   "It is whether the data can be trusted for decisions. In the pipeline I check that required fields are filled in and that today's volume is close to yesterday's. I check that values have the right format and fall within sensible bounds, like ages between 0 and 120. I make sure each order appears only once. I check the newest record arrived within the last hour. These checks run after each load on their own and stop the load when they fail.",
}

// keywordHits counts the key points whose keywords occur in answer: all
// the rubric counted before it matched by meaning.
func keywordHits(points []point, answer string) int {
	toks := read(answer)
	n := 0
	for _, p := range points {
		if p.phrases.in(toks) {
			n++
		}
	}
	return n
}

// TestParaphrasesByMeaning: none of the held-out answers holds a keyword of
// its question, so the keyword rubric scored each 12 (coverage 0,
// communication capped at 40). Matching by meaning lifts them, measured:
// mean 42, from 12 to 82, 2 of 13 at 60 or more (docs/interviewer.md), far
// from the 60 for every one that was hoped for: the vectors, learnt from
// news text, do not know most of the trade's terms. The test holds the
// rubric to bounds under those figures, and to the other half of the
// bargain: most answers (11 of 13) score higher against their own question
// than against the median question of their family.
const aboveMedianMeasured = 11

func TestParaphrasesByMeaning(t *testing.T) {
	iv := New()
	ctx := context.Background()
	sum, atSixty, aboveMedian := 0, 0, 0
	for id, answer := range heldoutParaphrases {
		q := iv.bank.byID[id]
		if n := keywordHits(q.Points, answer); n != 0 {
			t.Fatalf("%s: %d keyword hits; the held-out answers must be in other words", id, n)
		}
		e, err := iv.Evaluate(ctx, interview.Setup{}, interview.Question{ID: id, Text: q.Text}, nil, answer)
		if err != nil {
			t.Fatal(err)
		}
		if !e.Scorable || e.Score < 12 {
			t.Errorf("%s: scorable %v score %d, want a score of at least the keyword rubric's 12", id, e.Scorable, e.Score)
		}
		sum += e.Score
		if e.Score >= 60 {
			atSixty++
		}
		// Against the other questions of its family.
		var others []int
		for _, d := range difficulties {
			for _, o := range iv.bank.families[slices.IndexFunc(iv.bank.families, func(f *family) bool { return f.ID == q.Family })].questions[d] {
				if o.ID != id {
					others = append(others, assess(iv.rd, o.Points, answer).Score)
				}
			}
		}
		sort.Ints(others)
		if own := assess(iv.rd, q.Points, answer).Score; own > others[len(others)/2] {
			aboveMedian++
		} else {
			t.Logf("%s: scores %d on its own question, not above the family's median %d", id, own, others[len(others)/2])
		}
	}
	if mean := sum / len(heldoutParaphrases); mean < 35 || atSixty < 2 || aboveMedian < 10 {
		t.Errorf("held-out mean %d, %d at 60 or more, %d above their family's median; measured 42, 2 and %d", mean, atSixty, aboveMedian, aboveMedianMeasured)
	}
}

func TestEvidenceQuotesTheAnswer(t *testing.T) {
	e := evaluate(t, "backend-medium-02", goodIdempotency)
	if len(e.Evidence) < 3 {
		t.Fatalf("evidence %+v", e.Evidence)
	}
	for _, ev := range e.Evidence {
		if !strings.Contains(goodIdempotency, ev.Quote) {
			t.Errorf("quote %q not in the answer", ev.Quote)
		}
		list := e.Strengths
		if ev.Kind == interview.Improvement {
			list = e.Improvements
		}
		if !slices.Contains(list, ev.Point) {
			t.Errorf("evidence point %q not in its list %v", ev.Point, list)
		}
	}
	if !slices.ContainsFunc(e.Evidence, func(ev interview.Evidence) bool {
		return ev.Point == "Covered: Client sends an idempotency key" && strings.Contains(ev.Quote, "idempotency key")
	}) {
		t.Errorf("the covered point does not quote its sentence: %+v", e.Evidence)
	}
}

func TestSTAR(t *testing.T) {
	iv := New()
	q := iv.bank.byID["behavioural-medium-01"]
	full := "At my last job our team missed two releases in a row. I was responsible for getting the next one out on time. " +
		"I split the release into smaller pieces, set up a daily check-in and pushed back on two late feature requests. " +
		"As a result we shipped a week early and the next three releases were on time."
	e, _ := iv.Evaluate(context.Background(), interview.Setup{}, interview.Question{ID: q.ID, Text: q.Text}, nil, full)
	if e.Star == nil || !e.Star.Situation || !e.Star.Task || !e.Star.Action || !e.Star.Result {
		t.Fatalf("full story: %+v", e.Star)
	}
	half := "At my last job our team missed two releases in a row, which was stressful for everyone involved in the project."
	e, _ = iv.Evaluate(context.Background(), interview.Setup{}, interview.Question{ID: q.ID, Text: q.Text}, nil, half)
	if e.Scorable && (e.Star == nil || !e.Star.Situation || e.Star.Action || e.Star.Result ||
		!slices.ContainsFunc(e.Improvements, func(s string) bool { return strings.Contains(s, "STAR: result") })) {
		t.Fatalf("situation only: %+v %v", e.Star, e.Improvements)
	}
	if e := evaluate(t, "backend-medium-02", goodIdempotency); e.Star != nil {
		t.Errorf("a technical question got STAR: %+v", e.Star)
	}
}

// TestDevelopmentAnswers holds the answers the matching was tuned on to
// their measured figures: a mean of 39 over the 25 (from 12 under the
// keyword rubric), one of them (qa-testing-medium-04) wrongly found
// off-topic.
func TestDevelopmentAnswers(t *testing.T) {
	iv := New()
	sum, n, refused := 0, 0, 0
	for _, set := range []map[string]string{hardDev, plainDev, synonymDev} {
		for id, answer := range set {
			q := iv.bank.byID[id]
			e, err := iv.Evaluate(context.Background(), interview.Setup{}, interview.Question{ID: id, Text: q.Text}, nil, answer)
			if err != nil {
				t.Fatal(err)
			}
			sum += e.Score
			n++
			if !e.Scorable {
				refused++
				t.Logf("%s: not scorable: %s", id, e.Feedback)
			}
		}
	}
	t.Logf("development mean %d over %d", sum/n, n)
	if mean := sum / n; mean < 38 || refused > 1 {
		t.Errorf("development mean %d, %d refused; measured 39 and 1", mean, refused)
	}
}

// TestRepeatingTheQuestionIsNotAnAnswer: key points are read without the
// words of their question, so reading the question back earns little.
// Measured over the 270 questions: mean 22, 90th percentile 39 (what is
// left comes from keywords that the question itself contains).
func TestRepeatingTheQuestionIsNotAnAnswer(t *testing.T) {
	iv := New()
	sum := 0
	for _, q := range iv.bank.byID {
		e, err := iv.Evaluate(context.Background(), interview.Setup{}, interview.Question{ID: q.ID, Text: q.Text}, nil,
			"So, to answer "+q.Text+" I think it depends on the case.")
		if err != nil {
			t.Fatal(err)
		}
		sum += e.Score
	}
	if mean := sum / len(iv.bank.byID); mean > 28 {
		t.Errorf("reading the question back scores %d on average; measured 22", mean)
	}
}

// TestWrongQuestionStaysLower holds the development answers, scored
// against every other question of their family, to the measured figures:
// mean 29, 2.8 % at 60 or more, and 20 of 25 answers scoring above their
// family's median question. Loosening the matching lifts these as much as it
// lifts the answers' own scores (docs/interviewer.md), so this is the bound
// that keeps a higher figure honest.
func TestWrongQuestionStaysLower(t *testing.T) {
	iv := New()
	sum, n, atSixty, aboveMedian, answers := 0, 0, 0, 0, 0
	for _, set := range []map[string]string{hardDev, plainDev, synonymDev} {
		for id, answer := range set {
			q := iv.bank.byID[id]
			fam := iv.bank.families[slices.IndexFunc(iv.bank.families, func(f *family) bool { return f.ID == q.Family })]
			var others []int
			for _, d := range difficulties {
				for _, o := range fam.questions[d] {
					if o.ID == id {
						continue
					}
					s := assess(iv.rd, o.Points, answer).Score
					others = append(others, s)
					sum += s
					n++
					if s >= 60 {
						atSixty++
					}
				}
			}
			sort.Ints(others)
			if assess(iv.rd, q.Points, answer).Score > others[len(others)/2] {
				aboveMedian++
			}
			answers++
		}
	}
	mean, share := float64(sum)/float64(n), float64(atSixty)/float64(n)
	t.Logf("against other questions: mean %.1f, %.1f%% at 60 or more; %d of %d above the family median", mean, 100*share, aboveMedian, answers)
	if mean > 33 || share > 0.05 || aboveMedian < 18 {
		t.Errorf("against other questions: mean %.1f, %.1f%% at 60 or more, %d of %d above the median; measured 29.2, 2.8%% and 20",
			mean, 100*share, aboveMedian, answers)
	}
}
