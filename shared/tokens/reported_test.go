package tokens

import "testing"

func TestReportedBelievesOnlyPlausibleCounts(t *testing.T) {
	counted := 0
	count := func() int { counted++; return 70 }
	for _, tc := range []struct {
		name  string
		n     int64
		limit int
		want  int
	}{
		{"plausible", 50, 1000, 50},
		{"at the limit", 1000, 1000, 1000},
		{"negative", -500000, 1000, 70},
		{"missing", 0, 1000, 70},
		{"more than was sent", 1001, 1000, 70},
		{"absurd", 1 << 40, 1000, 70},
	} {
		counted = 0
		if got := Reported(tc.n, tc.limit, count); got != tc.want {
			t.Errorf("%s: Reported(%d, %d) = %d, want %d", tc.name, tc.n, tc.limit, got, tc.want)
		}
		if believed := tc.want == int(tc.n); believed && counted != 0 {
			t.Errorf("%s: counted the prompt although the reply's count was believed", tc.name)
		}
	}
}

func TestReportedOutput(t *testing.T) {
	for n, want := range map[int64]int{-1: 0, 0: 0, 3: 3, MaxOutput: MaxOutput, MaxOutput + 1: 0} {
		if got := ReportedOutput(n); got != want {
			t.Errorf("ReportedOutput(%d) = %d, want %d", n, got, want)
		}
	}
}
