// Package settings holds the rules both services read their settings by,
// each in one place: a whole number within bounds, a duration, a switch,
// and an absolute http(s) URL. Each service reads its environment once,
// in main, through a getenv function (os.Getenv there, a map in tests);
// an unset or blank setting takes its default, and a malformed one is an
// error that names the setting and the value, never a silent default.
package settings

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// IsHTTPURL reports whether s is an absolute http or https URL with a
// host: the rule for every base URL a service calls (a language model, a
// judge, an upstream provider).
func IsHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// Whole reads the setting name, a whole number from least to most: def
// when it is unset or blank.
func Whole[T ~int | ~int32 | ~int64](getenv func(string) string, name string, def, least, most T) (T, error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < int64(least) || n > int64(most) {
		if int64(most) >= math.MaxInt32 {
			// Bounds this large are the type's, not a rule's.
			return def, fmt.Errorf("%s %q: want a whole number, at least %d", name, v, least)
		}
		return def, fmt.Errorf("%s %q: want a whole number from %d to %d", name, v, least, most)
	}
	return T(n), nil
}

// Duration reads the setting name, a duration such as 20s or 1m30s of at
// least least: def when it is unset or blank.
func Duration(getenv func(string) string, name string, def, least time.Duration) (time.Duration, error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < least {
		return def, fmt.Errorf("%s %q: want a duration such as 20s, at least %v", name, v, least)
	}
	return d, nil
}

// Bool reads the setting name, true or false (or 1, 0, t, f, as
// strconv.ParseBool reads them): def when it is unset or blank.
func Bool(getenv func(string) string, name string, def bool) (bool, error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return def, fmt.Errorf("%s %q: want true or false", name, v)
	}
	return b, nil
}
