// Package metricstest reads the Prometheus text format that the services'
// /metrics serve, for tests that check what label values clients can make
// the services create.
package metricstest

import (
	"crypto/rand"
	"math/big"
	"regexp"
	"strings"
	"testing"
)

// Series is one labelled sample line.
type Series struct {
	Name   string
	Labels map[string]string
}

var (
	sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\} \S+$`)
	labelPair  = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)
)

// Samples reads the sample lines of body whose names start with prefix:
// the labelled ones as Series, the others (unlabelled samples) as they are.
func Samples(body, prefix string) (labelled []Series, unlabelled []string) {
	for line := range strings.SplitSeq(body, "\n") {
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		m := sampleLine.FindStringSubmatch(line)
		if m == nil {
			unlabelled = append(unlabelled, line)
			continue
		}
		s := Series{Name: m[1], Labels: map[string]string{}}
		for _, kv := range labelPair.FindAllStringSubmatch(m[2], -1) {
			s.Labels[kv[1]] = kv[2]
		}
		labelled = append(labelled, s)
	}
	return labelled, unlabelled
}

// RandomToken returns n characters drawn from alphabet by crypto/rand: a
// method or path segment no test could have listed beforehand.
func RandomToken(t testing.TB, alphabet string, n int) string {
	t.Helper()
	b := make([]byte, n)
	for i := range b {
		k, err := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		if err != nil {
			t.Fatal(err)
		}
		b[i] = alphabet[k.Int64()]
	}
	return string(b)
}
