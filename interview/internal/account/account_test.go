package account

import (
	"strings"
	"testing"

	"github.com/judgeworks/interview"
)

func TestNormalizeEmail(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"  Ada@Example.COM ", "ada@example.com", true},
		{"o'brien+x@example.org", "o'brien+x@example.org", true},
		{"", "", false},
		{"ada", "", false},
		{"Ada <ada@example.com>", "", false},
		{"ada@example.com, bob@example.com", "", false},
		{strings.Repeat("a", 250) + "@b.co", "", false},
	}
	for _, c := range cases {
		got, err := NormalizeEmail(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("NormalizeEmail(%q) = %q, %v", c.in, got, err)
		}
		if err != nil && !interview.Is(err, interview.Invalid) {
			t.Errorf("NormalizeEmail(%q) error %v is not invalid_argument", c.in, err)
		}
	}
}

func FuzzNormalizeEmail(f *testing.F) {
	f.Add("Ada@Example.com")
	f.Add("\"a b\"@x.y")
	f.Fuzz(func(t *testing.T, s string) {
		e, err := NormalizeEmail(s)
		if err != nil {
			return
		}
		if e != strings.ToLower(e) || strings.TrimSpace(e) != e || !strings.Contains(e, "@") || len([]rune(e)) > MaxEmailChars {
			t.Fatalf("NormalizeEmail(%q) = %q", s, e)
		}
	})
}
