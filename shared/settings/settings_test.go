package settings

import (
	"math"
	"strings"
	"testing"
	"time"
)

func env(name, value string) func(string) string {
	return func(k string) string {
		if k == name {
			return value
		}
		return ""
	}
}

func TestIsHTTPURL(t *testing.T) {
	for s, want := range map[string]bool{
		"http://localhost:8081":            true,
		"https://api.example.com/v1":       true,
		"https://user:pass@host/v1?k=v":    true,
		"":                                 false,
		"localhost:8081":                   false,
		"ftp://host/x":                     false,
		"https://":                         false,
		"/v1":                              false,
		"http://[::1":                      false,
		"HTTP://host":                      true, // url.Parse lowers the scheme
		"http//host":                       false,
		"https:/host/v1":                   false,
		"file:///etc/passwd":               false,
		"javascript:alert(1)":              false,
		" https://host-with-leading-space": false,
	} {
		if got := IsHTTPURL(s); got != want {
			t.Errorf("IsHTTPURL(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestWhole(t *testing.T) {
	tests := []struct {
		value     string
		least     int64
		most      int64
		want      int64
		errSubstr string
	}{
		{"", 1, 10, 7, ""}, // the default
		{"  ", 1, 10, 7, ""},
		{"1", 1, 10, 1, ""},
		{" 10 ", 1, 10, 10, ""},
		{"0", 1, 10, 7, "from 1 to 10"},
		{"11", 1, 10, 7, "from 1 to 10"},
		{"2.5", 1, 10, 7, "whole number"},
		{"ten", 1, 10, 7, "whole number"},
		{"-1", 0, math.MaxInt64, 7, "at least 0"},
		{"9223372036854775807", 0, math.MaxInt64, math.MaxInt64, ""},
		{"9223372036854775808", 0, math.MaxInt64, 7, "at least 0"},
	}
	for _, tt := range tests {
		got, err := Whole(env("N", tt.value), "N", 7, tt.least, tt.most)
		if tt.errSubstr == "" {
			if err != nil || got != tt.want {
				t.Errorf("Whole(%q) = %d, %v; want %d", tt.value, got, err, tt.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.errSubstr) || !strings.HasPrefix(err.Error(), "N ") {
			t.Errorf("Whole(%q) = %d, %v; want an error naming N and saying %q", tt.value, got, err, tt.errSubstr)
		}
	}
	// A narrower type is bounded by the bounds given, in that type.
	if n, err := Whole[int32](env("N", "1000"), "N", 5, 1, 1000); err != nil || n != 1000 {
		t.Errorf("Whole[int32] = %d, %v", n, err)
	}
}

func TestDuration(t *testing.T) {
	tests := []struct {
		value string
		least time.Duration
		want  time.Duration
		ok    bool
	}{
		{"", 0, time.Second, true},
		{"0", 0, 0, true},
		{"1m30s", 0, 90 * time.Second, true},
		{"-1s", 0, 0, false},
		{"0", time.Millisecond, 0, false},
		{"20", 0, 0, false}, // a unit is required
		{"soon", 0, 0, false},
	}
	for _, tt := range tests {
		got, err := Duration(env("D", tt.value), "D", time.Second, tt.least)
		if tt.ok != (err == nil) || (tt.ok && got != tt.want) {
			t.Errorf("Duration(%q, least %v) = %v, %v", tt.value, tt.least, got, err)
		}
	}
}

func TestBool(t *testing.T) {
	for value, want := range map[string]bool{"": true, "true": true, "false": false, "0": false, " 1 ": true} {
		if got, err := Bool(env("B", value), "B", true); err != nil || got != want {
			t.Errorf("Bool(%q) = %v, %v; want %v", value, got, err, want)
		}
	}
	if _, err := Bool(env("B", "yes"), "B", true); err == nil || !strings.Contains(err.Error(), "true or false") {
		t.Errorf("Bool(yes) = %v, want an error", err)
	}
}
