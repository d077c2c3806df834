// Package hostile builds JSON values shaped to make a reader work hard,
// and plain values to compare them with, and measures what reading them
// costs: every reader of untrusted JSON (request bodies, upstream
// replies, stored answers) shows with it that its time is linear in the
// bytes it reads and its memory a small multiple of them.
package hostile

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Value is a JSON value of about the size asked for.
type Value struct {
	Name string
	JSON string
}

// Text is a string of ordinary words: the usual state of a request, the
// usual content of a reply.
func Text(size int) Value {
	return Value{"plain text", `"` + fill(size-2, "the customer wrote again about a refund for the annual plan. ") + `"`}
}

// Document is an ordinary JSON document: a list of tickets, each an
// object of a few fields.
func Document(size int) Value {
	const ticket = `{"id": 4411, "from": "customer", "tags": ["billing", "refund"], "text": "I was charged twice for one order. Please refund the duplicate."}`
	return Value{"plain document", "[" + join(size-2, ticket) + "]"}
}

// Values are the hostile shapes, each about size bytes. One is not JSON
// (nested past the 10,000 levels every reader allows): it must be
// refused as cheaply as the others are read.
func Values(size int) []Value {
	deep := strings.Repeat("[", 9_000) + strings.Repeat("]", 9_000)
	return []Value{
		{"escaped backslashes", `"` + fill(size-2, `\\`) + `"`},
		{"escaped quotes", `"` + fill(size-2, `\"`) + `"`},
		{"unicode escapes", `"` + fill(size-2, `\u00e9`) + `"`},
		{"deep nesting", "[" + join(size-2, deep) + "]"},
		{"nesting past the limit", strings.Repeat("[", size/2) + strings.Repeat("]", size/2)},
		{"a long number", "[" + fill(size-2, "1") + "]"},
		{"many numbers", "[" + join(size-2, "1") + "]"},
		{"tiny arrays", "[" + join(size-2, "[]") + "]"},
		{"tiny objects", "[" + join(size-2, "{}") + "]"},
		{"empty strings", "[" + join(size-2, `""`) + "]"},
		{"many keys", "{" + keys(size-2) + "}"},
	}
}

// fill repeats unit to n bytes at most (whole units).
func fill(n int, unit string) string {
	return strings.Repeat(unit, max(n, 0)/len(unit))
}

// join repeats item, comma-separated, to n bytes at most (once at least).
func join(n int, item string) string {
	k := max((n+1)/(len(item)+1), 1)
	return strings.TrimSuffix(strings.Repeat(item+",", k), ",")
}

func keys(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n-20; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strconv.Itoa(i) + `":0`)
	}
	return b.String()
}

// Cost is what reading a body took: the time of the fastest of several
// runs, and the bytes one run allocated.
type Cost struct {
	Time      time.Duration
	Allocated uint64
}

// Measure reads body with read once for the bytes it allocates (which do
// not depend on the machine's load), then runs more times for the fastest
// time (which depends on it least).
func Measure(runs int, body []byte, read func([]byte)) Cost {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	read(body)
	runtime.ReadMemStats(&after)
	c := Cost{Allocated: after.TotalAlloc - before.TotalAlloc, Time: time.Duration(1<<63 - 1)}
	for range runs {
		start := time.Now()
		read(body)
		c.Time = min(c.Time, time.Since(start))
	}
	return c
}

// Bounds are what reading a hostile body may cost.
type Bounds struct {
	// TimeRatio bounds the fastest run over that of the body it is
	// compared with.
	TimeRatio float64
	// Allocated bounds the bytes one read allocates, as a multiple of the
	// body's size.
	Allocated float64
}

// Check reads the body of plain and the body of each hostile value of
// its size (wrap makes a body of a value) with read, and fails t for a
// hostile body whose fastest run takes more than bounds.TimeRatio times
// the plain body's, or that allocates more than bounds.Allocated times
// its size.
func Check(t *testing.T, plain Value, bounds Bounds, wrap func(Value) []byte, read func([]byte)) {
	t.Helper()
	pb := wrap(plain)
	for _, v := range Values(len(plain.JSON)) {
		hb := wrap(v)
		p, h := compare(pb, hb, bounds.TimeRatio, read)
		report(t, v.Name, len(hb), h, p, plain.Name, bounds)
	}
}

// CheckGrowth reads each hostile value at small and at 16 times the size
// (wrap makes a body of a value) and fails t when the larger one's fastest
// run takes more than 4 times 16 times the smaller one's, or allocates
// more than allocated times its size. A reader linear in its input stays
// well inside that even on a busy machine whose caches hold the small
// body and not the large one; one quadratic in it takes 256 times. It is
// the check of a reader whose cost per byte is not compared with
// another's.
func CheckGrowth(t *testing.T, small int, allocated float64, wrap func(Value) []byte, read func([]byte)) {
	t.Helper()
	bounds := Bounds{TimeRatio: 64, Allocated: allocated}
	smaller := Values(small)
	for i, v := range Values(16 * small) {
		sb, lb := wrap(smaller[i]), wrap(v)
		s, l := compare(sb, lb, bounds.TimeRatio, read)
		report(t, v.Name, len(lb), l, s, "its 1/16", bounds)
	}
}

// compare measures a and b in interleaved rounds, so that a burst of load
// hurts both alike, keeping each one's fastest run, until b's is within
// ratio times a's, or far past it (a quadratic reader, found in the
// first round), or for at most ten rounds.
func compare(a, b []byte, ratio float64, read func([]byte)) (ca, cb Cost) {
	for round := range 10 {
		x, y := Measure(1, a, read), Measure(1, b, read)
		if round == 0 {
			ca, cb = x, y
		}
		ca.Time, cb.Time = min(ca.Time, x.Time), min(cb.Time, y.Time)
		if r := float64(cb.Time) / float64(max(ca.Time, time.Microsecond)); r <= ratio || r > 10*ratio {
			break
		}
	}
	return ca, cb
}

func report(t *testing.T, name string, size int, c, base Cost, baseName string, bounds Bounds) {
	t.Helper()
	ratio := float64(c.Time) / float64(max(base.Time, time.Microsecond))
	allocated := float64(c.Allocated) / float64(size)
	t.Logf("%-24s %8d bytes: %10v, %5.1fx %s (%v); %6.2f MB allocated, %.2fx its size",
		name, size, c.Time, ratio, baseName, base.Time, float64(c.Allocated)/1e6, allocated)
	if ratio > bounds.TimeRatio {
		t.Errorf("%s: %v, %.1fx %s (%v); want at most %.0fx", name, c.Time, ratio, baseName, base.Time, bounds.TimeRatio)
	}
	if allocated > bounds.Allocated {
		t.Errorf("%s: %.2f MB allocated for %d bytes, %.1fx its size; want at most %.1fx",
			name, float64(c.Allocated)/1e6, size, allocated, bounds.Allocated)
	}
}
