// Package hostile builds JSON values shaped to make a reader work hard,
// each beside a plain value of the same size, and measures what reading
// them costs, so that every reader of untrusted JSON (request bodies,
// upstream replies, stored answers) can show that its time is linear in
// the bytes it reads and its memory a small multiple of them.
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
	// Invalid is set for a value that is not JSON (nested past the
	// 10,000 levels every reader of the project allows): it must be
	// refused, as cheaply as the others are read.
	Invalid bool
}

// Plain is a string of ordinary words: the usual request's state.
func Plain(size int) Value {
	return Value{"plain", `"` + fill(size-2, "the customer wrote again about a refund for the annual plan. ") + `"`, false}
}

// Values are the hostile shapes, each about size bytes.
func Values(size int) []Value {
	deep := strings.Repeat("[", 9_000) + strings.Repeat("]", 9_000)
	return []Value{
		{"escaped backslashes", `"` + fill(size-2, `\\`) + `"`, false},
		{"escaped quotes", `"` + fill(size-2, `\"`) + `"`, false},
		{"unicode escapes", `"` + fill(size-2, `\u00e9`) + `"`, false},
		{"deep nesting", "[" + join(size-2, deep) + "]", false},
		{"nesting past the limit", strings.Repeat("[", size/2) + strings.Repeat("]", size/2), true},
		{"a long number", "[" + fill(size-2, "1") + "]", false},
		{"many numbers", "[" + join(size-2, "1") + "]", false},
		{"tiny arrays", "[" + join(size-2, "[]") + "]", false},
		{"tiny objects", "[" + join(size-2, "{}") + "]", false},
		{"empty strings", "[" + join(size-2, `""`) + "]", false},
		{"many keys", "{" + keys(size-2) + "}", false},
	}
}

// fill repeats unit to n bytes at most (whole units).
func fill(n int, unit string) string {
	return strings.Repeat(unit, max(n, 0)/len(unit))
}

// join repeats item, comma-separated, to n bytes at most.
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

// Cost is what one read took: the CPU time of the fastest of several
// runs and the bytes allocated by one.
type Cost struct {
	Time      time.Duration
	Allocated uint64
}

// Measure reads body with read: the bytes one run allocates, and the
// fastest of runs runs. The allocation count does not depend on the
// machine's load; the fastest time depends on it least.
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

// Bounds are what a read of a hostile value may cost against the plain
// one of the same size.
type Bounds struct {
	// TimeRatio bounds the fastest hostile run over the fastest plain run.
	TimeRatio float64
	// AllocatedRatio bounds the bytes a hostile read allocates, over the
	// body's size.
	AllocatedRatio float64
}

// Check reads the plain body and each hostile one with read, the runs
// interleaved so that a burst of load hurts both alike, and fails t for
// a hostile body that costs more than bounds allow. wrap turns a value
// into the body the reader takes.
func Check(t *testing.T, size int, bounds Bounds, wrap func(Value) []byte, read func([]byte)) {
	t.Helper()
	plain := wrap(Plain(size))
	for _, v := range Values(size) {
		body := wrap(v)
		// Five rounds, each a plain run and a hostile run; a quadratic
		// reader is found in the first round, so its test ends early.
		var p, h Cost
		for round := range 5 {
			pc, hc := Measure(1, plain, read), Measure(1, body, read)
			if round == 0 {
				p, h = pc, hc
			}
			p.Time, h.Time = min(p.Time, pc.Time), min(h.Time, hc.Time)
			if float64(h.Time) > 100*bounds.TimeRatio*float64(p.Time) {
				break
			}
		}
		ratio := float64(h.Time) / float64(max(p.Time, time.Microsecond))
		t.Logf("%-24s %7d bytes: %9v (%.1fx plain's %v), %.1f MB allocated (%.1fx its size)",
			v.Name, len(body), h.Time, ratio, p.Time, float64(h.Allocated)/1e6, float64(h.Allocated)/float64(len(body)))
		if ratio > bounds.TimeRatio {
			t.Errorf("%s: %v, %.1fx the plain body's %v; want at most %.0fx", v.Name, h.Time, ratio, p.Time, bounds.TimeRatio)
		}
		if a := float64(h.Allocated) / float64(len(body)); a > bounds.AllocatedRatio {
			t.Errorf("%s: %.1f MB allocated for a %d-byte body, %.1fx its size; want at most %.1fx",
				v.Name, float64(h.Allocated)/1e6, len(body), a, bounds.AllocatedRatio)
		}
	}
}
