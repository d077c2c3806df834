package systemone

import (
	"encoding/binary"
	"encoding/json"
)

// AppendKey appends to b every field of q, each after its length, so two
// questions have the same key exactly when they are the same question in
// the same bytes (a nil text and an empty one told apart too). Engines
// keep what they make of a question by this key: what they make of it
// depends on nothing else.
func (q Question) AppendKey(b []byte) []byte {
	b = appendName(b, string(q.Type))
	b = appendText(b, q.Instructions)
	if q.Noul == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = appendText(b, q.Noul.True)
		b = appendText(b, q.Noul.False)
	}
	b = binary.AppendUvarint(b, uint64(len(q.Options)))
	for _, o := range q.Options {
		b = appendName(b, o.Name)
		b = appendText(b, o.Description)
	}
	b = binary.AppendUvarint(b, uint64(len(q.Levels)))
	for _, l := range q.Levels {
		b = appendText(b, l)
	}
	return b
}

// appendName appends s's length and s.
func appendName(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendText appends s's length plus one (0 for nil) and s.
func appendText(b []byte, s json.RawMessage) []byte {
	if s == nil {
		return append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(s))+1)
	return append(b, s...)
}
