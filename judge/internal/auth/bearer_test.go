package auth

import (
	"slices"
	"strings"
	"testing"
)

func TestParseBearerKeys(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    [][]string // models per key; nil = unrestricted
		wantErr string
	}{
		{name: "empty", in: "", want: nil},
		{name: "one", in: "dev-key", want: [][]string{nil}},
		{name: "spaces", in: " a1 , b2 ", want: [][]string{nil, nil}},
		{name: "restricted", in: "key1,key2:local/lexical-latest|llm-latest",
			want: [][]string{nil, {"local/lexical-latest", "llm-latest"}}},
		{name: "token68 padding", in: "abc+/==", want: [][]string{nil}},
		{name: "empty entry", in: "a,,b", wantErr: "entry 2 is empty"},
		{name: "trailing comma", in: "a,", wantErr: "entry 2 is empty"},
		{name: "bad char", in: "a b", wantErr: "entry 1: a key may hold"},
		{name: "padding inside", in: "a=b", wantErr: "entry 1: a key may hold"},
		{name: "empty model list", in: "a:", wantErr: "empty model name"},
		{name: "empty model in list", in: "a:m1||m2", wantErr: "empty model name"},
		{name: "duplicate", in: "a,b,a:m", wantErr: "entries 1 and 3 hold the same key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ks, err := ParseBearerKeys(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ks.Len() != len(tt.want) {
				t.Fatalf("got %d keys, want %d", ks.Len(), len(tt.want))
			}
			for i, k := range ks.All() {
				if len(k.ID) != 32 || !slices.Equal(k.Models, tt.want[i]) {
					t.Errorf("key %d = id %q models %q, want a 32-digit id and models %q", i, k.ID, k.Models, tt.want[i])
				}
			}
		})
	}
}

func TestParseBearerKeysErrorsNeverQuoteAKey(t *testing.T) {
	for _, in := range []string{"s3cret x", "s3cret,s3cret", "s3cret:"} {
		_, err := ParseBearerKeys(in)
		if err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("ParseBearerKeys(%q) error = %v: want an error that does not quote the key", in, err)
		}
	}
}

func TestBearerKeysMatch(t *testing.T) {
	ks, err := ParseBearerKeys("alpha,beta:m1,gamma")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		token  string
		wantID int // 0 = no match
	}{
		{"alpha", 1}, {"beta", 2}, {"gamma", 3},
		{"", 0}, {"alph", 0}, {"alphaa", 0}, {"ALPHA", 0}, {"beta:m1", 0},
	}
	for _, tt := range tests {
		k, ok := ks.Match(tt.token)
		if ok != (tt.wantID != 0) || ok && k.ID != ks.All()[tt.wantID-1].ID {
			t.Errorf("Match(%q) = %v %v, want entry %d", tt.token, k.ID, ok, tt.wantID)
		}
	}
	if k, _ := ks.Match("beta"); !slices.Equal(k.Models, []string{"m1"}) {
		t.Errorf("beta models = %q", k.Models)
	}
	if s := ks.All()[0].String(); s != "key:"+ks.All()[0].ID[:12] {
		t.Errorf("String() = %q, want key: and the start of its id", s)
	}
}

// A key's identity is its own: the same key has the same ID wherever it
// stands in the list, so revoking the first key hands nothing of it
// (buckets, stored answers) to the key that moves up; the ID quotes
// nothing of the key.
func TestKeyIDIsTheKeysOwn(t *testing.T) {
	before, err := ParseBearerKeys("alpha-key-0123456789,beta-key-0123456789:m1")
	if err != nil {
		t.Fatal(err)
	}
	after, err := ParseBearerKeys("beta-key-0123456789:m1")
	if err != nil {
		t.Fatal(err)
	}
	a, b := before.All()[0], before.All()[1]
	if a.ID == b.ID {
		t.Fatal("two keys share an ID")
	}
	if after.All()[0].ID != b.ID {
		t.Errorf("beta's ID changed when alpha was removed: %s → %s", b.ID, after.All()[0].ID)
	}
	if got, _ := after.Match("beta-key-0123456789"); got.ID == a.ID {
		t.Error("beta inherited alpha's identity")
	}
	for _, k := range before.All() {
		if strings.Contains(k.ID, "key") || strings.Contains(k.String(), "key-0123") || strings.Contains(k.String(), "#") {
			t.Errorf("ID %q / name %q quote the key or a position", k.ID, k.String())
		}
	}
}

func TestBearerToken(t *testing.T) {
	tests := []struct {
		header, want string
		ok           bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer abc", "abc", true},
		{"  Bearer   abc  ", "abc", true},
		{"Bearer", "", false},
		{"Bearer ", "", false},
		{"Basic abc", "", false},
		{"abc", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := BearerToken(tt.header)
		if got != tt.want || ok != tt.ok {
			t.Errorf("BearerToken(%q) = %q %v, want %q %v", tt.header, got, ok, tt.want, tt.ok)
		}
	}
}
