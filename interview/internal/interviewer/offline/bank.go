package offline

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/judgeworks/interview"
	"github.com/judgeworks/interview/internal/interviewer/relevance"
	"github.com/judgeworks/shared/words"
)

// The bank is one JSON file per role family so that each family can be
// reviewed (and extended) on its own.
//
//go:embed bank/*.json
var bankFiles embed.FS

// The bank's files list questions by these levels.
var difficulties = interview.Difficulties()

// point is one thing a good answer covers, with the phrases that count as
// mentioning it.
type point struct {
	Label    string
	phrases  phraseList // each keyword, read
	Keywords []string
	// meaning holds the label and each keyword as read by the vectors,
	// for finding the point said in other words.
	meaning []relevance.Phrase
}

type question struct {
	ID         string
	Text       string
	Family     string
	Difficulty string
	Points     []point
	// topic is the question with its key points and keywords, for telling
	// which question an answer addresses.
	topic relevance.Topic
}

type family struct {
	ID       string
	Name     string
	keywords phraseList // role keyword phrases, read
	// words are the distinctive words of its role keywords, folded:
	// "cloud" of "cloud engineer", never "engineer".
	words map[string]bool
	// questions by difficulty, in file order.
	questions map[string][]*question
}

type bank struct {
	families []*family // sorted by ID so matching ties resolve the same way every run
	byID     map[string]*question
	byText   map[string]*question
	fallback *family
}

// fileQuestion is the on-disk shape: a point is written "Label = kw | kw | kw"
// to keep 240 questions readable in one screenful per difficulty.
type fileQuestion struct {
	Q string   `json:"q"`
	P []string `json:"p"`
}

type fileFamily struct {
	ID       string         `json:"id"`
	Name     string         `json:"name"`
	Keywords []string       `json:"keywords"`
	Easy     []fileQuestion `json:"easy"`
	Medium   []fileQuestion `json:"medium"`
	Hard     []fileQuestion `json:"hard"`
}

// read prepares every point for matching by meaning with rd.
func (b *bank) read(rd *relevance.Reader) {
	for _, q := range b.byID {
		ref := make([]string, 0, 2*len(q.Points))
		for i := range q.Points {
			q.Points[i].read(rd, q.Text)
			ref = append(ref, q.Points[i].Label)
			ref = append(ref, q.Points[i].Keywords...)
		}
		q.topic = rd.Topic(q.Text, ref...)
	}
}

// read prepares p for matching by meaning, leaving out the words of its
// question (see relevance.Reader.Without).
func (p *point) read(rd *relevance.Reader, question string) {
	p.meaning = p.meaning[:0]
	for _, s := range append([]string{p.Label}, p.Keywords...) {
		if ph := rd.Without(rd.Phrase(s), question); !ph.Empty() {
			p.meaning = append(p.meaning, ph)
		}
	}
}

// corpus is every point's label and keywords, one document per point: the
// reader weighs words by how few points use them.
func (b *bank) corpus() []string {
	var docs []string
	for _, f := range b.families {
		for _, d := range difficulties {
			for _, q := range f.questions[d] {
				for _, p := range q.Points {
					docs = append(docs, p.Label+" "+strings.Join(p.Keywords, " "))
				}
			}
		}
	}
	return docs
}

// fallbackFamily is used when the free-text role names no known family:
// behavioural questions suit every profession, where another family's
// technical questions would suit none.
const fallbackFamily = "behavioural"

func loadBank(fsys fs.FS) (*bank, error) {
	names, err := fs.Glob(fsys, "bank/*.json")
	if err != nil {
		return nil, err
	}
	b := &bank{byID: map[string]*question{}, byText: map[string]*question{}}
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		var ff fileFamily
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ff); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		f, err := b.addFamily(ff)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		b.families = append(b.families, f)
	}
	sort.Slice(b.families, func(i, j int) bool { return b.families[i].ID < b.families[j].ID })
	for _, f := range b.families {
		if f.ID == fallbackFamily {
			b.fallback = f
		}
	}
	if b.fallback == nil {
		return nil, fmt.Errorf("bank has no %q family", fallbackFamily)
	}
	return b, nil
}

func (b *bank) addFamily(ff fileFamily) (*family, error) {
	if ff.ID == "" || ff.Name == "" || len(ff.Keywords) == 0 {
		return nil, fmt.Errorf("family needs id, name and keywords")
	}
	f := &family{ID: ff.ID, Name: ff.Name, questions: map[string][]*question{}}
	f.keywords = phrases(ff.Keywords...)
	f.words = map[string]bool{}
	for _, kw := range ff.Keywords {
		for _, w := range reader.Words(kw) {
			if !roleWords[w.Text] {
				f.words[words.Fold(w.Text)] = true
			}
		}
	}
	lists := map[string][]fileQuestion{"easy": ff.Easy, "medium": ff.Medium, "hard": ff.Hard}
	for _, d := range difficulties {
		for i, fq := range lists[d] {
			// IDs come from the position, so new questions go at the end of a
			// list: interviews in progress keep pointing at the same question.
			q := &question{
				ID:         fmt.Sprintf("%s-%s-%02d", ff.ID, d, i+1),
				Text:       strings.TrimSpace(fq.Q),
				Family:     ff.ID,
				Difficulty: d,
			}
			if q.Text == "" {
				return nil, fmt.Errorf("%s: empty question text", q.ID)
			}
			for _, raw := range fq.P {
				pt, err := parsePoint(raw)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", q.ID, err)
				}
				q.Points = append(q.Points, pt)
			}
			if n := len(q.Points); n < 3 || n > 6 {
				return nil, fmt.Errorf("%s: %d key points, want 3 to 6", q.ID, n)
			}
			if _, dup := b.byID[q.ID]; dup {
				return nil, fmt.Errorf("duplicate question id %s", q.ID)
			}
			b.byID[q.ID] = q
			b.byText[normText(q.Text)] = q
			f.questions[d] = append(f.questions[d], q)
		}
	}
	return f, nil
}

func parsePoint(raw string) (point, error) {
	label, kws, ok := strings.Cut(raw, " = ")
	label = strings.TrimSpace(label)
	if !ok || label == "" {
		return point{}, fmt.Errorf("key point %q: want \"Label = keyword | keyword\"", raw)
	}
	pt := point{Label: label}
	for kw := range strings.SplitSeq(kws, "|") {
		kw = strings.TrimSpace(kw)
		p := read(kw)
		if p.Len() == 0 {
			continue
		}
		pt.Keywords = append(pt.Keywords, kw)
		pt.phrases = append(pt.phrases, p)
	}
	if len(pt.phrases) == 0 {
		return point{}, fmt.Errorf("key point %q has no keywords", label)
	}
	return pt, nil
}

func normText(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// roleWords name a rank or a kind of job in any profession, not its
// field: they never choose a family alone.
var roleWords = words.StopWords("engineer", "engineering", "developer", "development", "manager", "management", "lead",
	"leader", "senior", "junior", "staff", "principal", "head", "director", "officer", "specialist", "analyst",
	"architect", "consultant", "administrator", "intern", "associate", "assistant", "representative", "coordinator",
	"expert", "designer", "owner", "scientist", "researcher", "technician", "professional", "executive", "chief")

// resolveFamilies picks the families nearest the free-text role: those
// whose role keywords it holds, the longest phrase winning ("data
// engineer" beats "engineer"); failing that, those sharing most of its
// distinctive words ("cloud" of "cloud architect" is "cloud engineer"'s).
// Every family tied at the best is returned, so "full-stack developer"
// (a keyword of both backend and frontend) draws from both. A role that
// names no family gets the general behavioural questions, and matched
// false.
func (b *bank) resolveFamilies(role string) (fams []*family, matched bool) {
	r := read(role)
	if out := b.best(func(f *family) int {
		score := 0
		for _, kw := range f.keywords {
			if r.Has(kw) {
				score += kw.Len()
			}
		}
		return score
	}); len(out) > 0 {
		return out, true
	}
	var distinct []string
	for _, w := range reader.Words(role) {
		if !roleWords[w.Text] {
			distinct = append(distinct, words.Fold(w.Text))
		}
	}
	if out := b.best(func(f *family) int {
		score := 0
		for _, w := range distinct {
			if f.words[w] {
				score++
			}
		}
		return score
	}); len(out) > 0 {
		return out, true
	}
	return []*family{b.fallback}, false
}

// best returns the families of the highest positive score, in bank order.
func (b *bank) best(score func(*family) int) []*family {
	top := 0
	var out []*family
	for _, f := range b.families {
		switch s := score(f); {
		case s == 0 || s < top:
		case s > top:
			top, out = s, []*family{f}
		default:
			out = append(out, f)
		}
	}
	return out
}

// normDifficulty maps the free-text difficulty to a bank difficulty;
// anything unrecognised is medium.
func normDifficulty(s string) string {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "easy", "beginner", "junior", "entry", "entry-level", "basic":
		return "easy"
	case "hard", "advanced", "senior", "expert", "difficult":
		return "hard"
	default:
		return "medium"
	}
}

// neighbours lists the difficulties to draw from once the chosen one runs
// out (interviews may have up to 20 questions, a difficulty holds 10).
func neighbours(d string) []string {
	switch d {
	case "easy":
		return []string{"easy", "medium", "hard"}
	case "hard":
		return []string{"hard", "medium", "easy"}
	default:
		return []string{"medium", "hard", "easy"}
	}
}

// FamiliesFor names the families a role's questions come from, and
// whether the role named them (false: the general behavioural questions
// any role gets), so the setup page can say so before an interview starts.
func (iv *Interviewer) FamiliesFor(role string) (names []string, matched bool) {
	fams, matched := iv.bank.resolveFamilies(role)
	for _, f := range fams {
		names = append(names, f.Name)
	}
	return names, matched
}

// Families names the role families the bank holds questions for, and the
// one a role that names none of them gets, so the page can say so before
// an interview starts.
func (iv *Interviewer) Families() (names []string, fallback string) {
	for _, f := range iv.bank.families {
		names = append(names, f.Name)
	}
	return names, iv.bank.fallback.Name
}

// family lists every question of the family with id id.
func (b *bank) family(id string) []*question {
	for _, f := range b.families {
		if f.ID != id {
			continue
		}
		var out []*question
		for _, d := range difficulties {
			out = append(out, f.questions[d]...)
		}
		return out
	}
	return nil
}
