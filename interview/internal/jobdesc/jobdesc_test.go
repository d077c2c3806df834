package jobdesc

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// coverageExamples pairs requirements with answers written to cover them
// (same index) and tells the rest apart; the threshold is set on them.
var coverageExamples = []struct{ requirement, answer string }{
	{"Experience with PostgreSQL and query optimisation",
		"I add an index on the columns in the WHERE clause and check the plan with EXPLAIN ANALYZE in Postgres; the slow query went from 2 seconds to 40 milliseconds."},
	{"Build and operate services on Kubernetes",
		"We deployed the service as a Deployment with readiness probes and a horizontal pod autoscaler, and rolled out with helm on our kubernetes cluster."},
	{"web applications with React and TypeScript",
		"React diffs the virtual DOM and re-renders only components whose props or state changed; memo helps avoid needless renders."},
	{"Caching strategies",
		"Cache the rendered page in a CDN and cache hot rows in memory with a short TTL; invalidate the cached entry when it is written."},
	{"Accessibility: keyboard navigation and screen readers",
		"Use semantic HTML elements, labels for inputs, visible focus and test with a screen reader and keyboard only."},
	{"SLOs and error budgets",
		"We defined service level objectives for latency and availability and froze releases when the error budget ran out."},
	{"Batch and streaming data pipelines",
		"Nightly batch jobs load the warehouse, while a streaming pipeline reads events from the queue for the live dashboard."},
}

func TestCoverageExamples(t *testing.T) {
	var lines []string
	hits, falseHits := 0, 0
	for i, r := range coverageExamples {
		req := Prepare(r.requirement)
		var row []string
		for j, a := range coverageExamples {
			m := Coverage(req, PrepareAnswer(a.answer))
			row = append(row, fmt.Sprintf("%.2f", m))
			covered := Covers(req, PrepareAnswer(a.answer))
			switch {
			case i == j && covered:
				hits++
			case i != j && covered:
				falseHits++
			}
		}
		lines = append(lines, fmt.Sprintf("%-55.55s %s", r.requirement, strings.Join(row, " ")))
	}
	t.Logf("Match of each requirement (rows) by each answer (columns):\n%s", strings.Join(lines, "\n"))
	// Every written-for answer covers its requirement; of the 42 unrelated
	// pairs, none.
	if hits != len(coverageExamples) || falseHits != 0 {
		t.Fatalf("%d of %d intended pairs covered, %d unrelated pairs covered", hits, len(coverageExamples), falseHits)
	}
}

func TestVagueAnswerCoversNothing(t *testing.T) {
	vague := PrepareAnswer("It depends on the situation; I would follow best practices and do what works.")
	for _, r := range coverageExamples {
		if m := Coverage(Prepare(r.requirement), vague); m >= CoverThreshold {
			t.Errorf("a vague answer covers %q (%.2f)", r.requirement, m)
		}
	}
	if Covers(Prepare("and the"), vague) {
		t.Error("a requirement without content words is covered")
	}
}

func TestMatchWords(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want float64
	}{
		{"caching", "we cached it", 1},
		{"PostgreSQL", "postgres", 1},
		{"optimisation", "optimization", 1},
		{"databases", "a database", 1},
		{"kubernetes", "a react app", 0},
	} {
		if got := Match(Prepare(c.a), Prepare(c.b)); got != c.want {
			t.Errorf("Match(%q, %q) = %.2f, want %.0f", c.a, c.b, got, c.want)
		}
	}
	// Related words count in part, unrelated ones nearly not at all.
	related := Match(Prepare("SQL"), Prepare("a relational query"))
	unrelated := Match(Prepare("SQL"), Prepare("recipes for cooking"))
	if related < 0.3 || unrelated > 0.05 {
		t.Errorf("SQL: related %.2f, unrelated %.2f", related, unrelated)
	}
}

func TestRequirementsFromBullets(t *testing.T) {
	jd := `We are hiring a Frontend Engineer to build our customer dashboard.

Requirements:
- 3+ years building web applications with React and TypeScript
- Deep knowledge of HTML, CSS and browser performance
* Accessibility: you care about keyboard navigation and screen readers
1. Experience with state management and testing UI components
Nice to have: design systems, web vitals.`
	got := Requirements(jd)
	want := []string{
		"web applications with React and TypeScript",
		"HTML, CSS and browser performance",
		"Accessibility: you care about keyboard navigation and screen readers",
		"state management and testing UI components",
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("requirements %q lack %q", got, w)
		}
	}
	if len(got) > MaxRequirements {
		t.Errorf("%d requirements", len(got))
	}
	for _, r := range got {
		if strings.Contains(strings.ToLower(r), "nice to have") || r == "Requirements" {
			t.Errorf("filler kept as a requirement: %q", r)
		}
	}
}

func TestRequirementsFromProse(t *testing.T) {
	jd := "Data Engineer. You will build batch and streaming pipelines that move billions of events into our warehouse. " +
		"You have experience with Spark, Airflow and SQL, data modelling for analytics, and data quality checks."
	got := Requirements(jd)
	for _, w := range []string{"Spark", "Airflow and SQL", "data modelling for analytics", "data quality checks"} {
		if !slices.Contains(got, w) {
			t.Errorf("requirements %q lack %q", got, w)
		}
	}
}

func TestRequirementsKeepTheMostSpecific(t *testing.T) {
	var b strings.Builder
	for _, w := range strings.Fields("people time world life house school state family group country problem hand part place case week company system program question") {
		fmt.Fprintf(&b, "- %s\n", w)
	}
	b.WriteString("- Kubernetes operators and Terraform modules\n")
	got := Requirements(b.String())
	if len(got) != MaxRequirements {
		t.Fatalf("%d requirements, want %d", len(got), MaxRequirements)
	}
	if got[len(got)-1] != "Kubernetes operators and Terraform modules" {
		t.Errorf("the specific requirement was dropped or moved: %q", got)
	}
}

func TestRequirementsFallBackToTerms(t *testing.T) {
	got := Requirements("kubernetes kubernetes terraform")
	if len(got) == 0 || len(got) > MaxRequirements {
		t.Fatalf("requirements %q", got)
	}
	if got := Requirements("   \n\n "); len(got) != 0 {
		t.Fatalf("an empty description gave %q", got)
	}
}

func TestLongBulletIsClipped(t *testing.T) {
	got := Requirements("- Go\n- " + strings.Repeat("distributed ", 30))
	if !slices.Equal(got, []string{"Go"}) {
		t.Fatalf("a bullet of 30 content words is not one requirement: %q", got)
	}
	got = Requirements("- Kubernetes " + strings.Repeat("x", 300))
	if len(got) != 1 || len([]rune(got[0])) > maxRequirementRunes {
		t.Fatalf("long bullet: %q", got)
	}
}

func FuzzRequirements(f *testing.F) {
	f.Add("- Go\n- Postgres\nWe value clarity, kindness and tests.")
	f.Add("1) a\n2) b")
	f.Fuzz(func(t *testing.T, s string) {
		got := Requirements(s)
		if len(got) > MaxRequirements {
			t.Fatalf("%d requirements", len(got))
		}
		for _, r := range got {
			if strings.TrimSpace(r) == "" || len([]rune(r)) > maxRequirementRunes {
				t.Fatalf("requirement %q", r)
			}
		}
	})
}
