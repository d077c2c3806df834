package idempotency

import (
	"bytes"
	"encoding/json"
	"errors"
)

// A slot holds a claim or an answer, encoded alike in process and in
// Redis, so the size counted against a key is the size kept in both:
//
//	c{"fp":…,"token":…}                                     a claim
//	a{"fp":…,"model":…,"status":…,"content_type":…}\n<body>  an answer
//
// The body is kept as the bytes that were sent, neither escaped nor
// base64-encoded.

type header struct {
	FP    string `json:"fp"`
	Token string `json:"token,omitempty"`
	Answer
}

func encodeClaim(fp, token string) []byte {
	b, _ := json.Marshal(header{FP: fp, Token: token})
	return append([]byte{'c'}, b...)
}

func encodeAnswer(fp string, a Answer) []byte {
	h, _ := json.Marshal(header{FP: fp, Answer: a})
	out := make([]byte, 0, 2+len(h)+len(a.Body))
	out = append(out, 'a')
	out = append(out, h...)
	out = append(out, '\n')
	return append(out, a.Body...)
}

// decode reads a slot: its fingerprint, and the answer when it holds one
// (isAnswer) rather than a claim.
func decode(v []byte) (fp string, a Answer, isAnswer bool, err error) {
	if len(v) == 0 {
		return "", Answer{}, false, errors.New("empty idempotency record")
	}
	kind, rest := v[0], v[1:]
	head := rest
	if kind == 'a' {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return "", Answer{}, false, errors.New("idempotency answer without a body")
		}
		head = rest[:i]
	}
	var h header
	if err := json.Unmarshal(head, &h); err != nil || (kind != 'a' && kind != 'c') {
		return "", Answer{}, false, errors.New("malformed idempotency record")
	}
	if kind == 'a' {
		h.Answer.Body = rest[len(head)+1:]
	}
	return h.FP, h.Answer, kind == 'a', nil
}
