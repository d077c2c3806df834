package tokens

import (
	"fmt"
	"math/bits"
)

// vocab is the rank table of the encoding, stored without pointers.
//
// A map[string]int of the ~200k tokens held as many string headers, and every
// garbage collection of a process that had loaded it scanned them all. Here
// the token bytes are one []byte in rank order, offs[r]:offs[r+1] is token r,
// and an open-addressing hash table of uint32 slots finds a token's rank:
// the collector sees three noscan arrays, and a lookup touches one slot, one
// offset pair and the bytes compared.
type vocab struct {
	data  []byte   // every token's bytes, in rank order
	offs  []uint32 // len n+1: token r is data[offs[r]:offs[r+1]]
	slots []uint32 // 0 empty, else tag<<rankBits | rank+1
	mask  uint64   // len(slots)-1
}

// A slot holds rank+1 in its low rankBits bits and, above them, tagBits bits
// of the token's hash, so that a probe that meets another token is almost
// always rejected without reading its bytes.
const (
	rankBits = 18 // o200k_base has 199,998 ranks, below 1<<18
	rankMask = 1<<rankBits - 1
	tagBits  = 32 - rankBits
)

// newVocab builds the table from the loader's ranks, which must be exactly
// 0..len(ranks)-1 (true of every published tiktoken encoding) and fit in
// rankBits. The map is not kept.
func newVocab(ranks map[string]int) (*vocab, error) {
	n := len(ranks)
	if n+1 > rankMask {
		return nil, fmt.Errorf("tokens: %d ranks do not fit in %d bits", n, rankBits)
	}
	byRank := make([]string, n)
	size := 0
	for tok, r := range ranks {
		if r < 0 || r >= n || byRank[r] != "" || tok == "" {
			return nil, fmt.Errorf("tokens: ranks are not 0..%d, each once, for non-empty tokens (rank %d)", n-1, r)
		}
		byRank[r] = tok
		size += len(tok)
	}
	if uint64(size) > 1<<32-1 {
		return nil, fmt.Errorf("tokens: %d bytes of tokens do not fit 32-bit offsets", size)
	}
	// At least twice as many slots as tokens keeps probe runs short.
	nslots := 1 << bits.Len(uint(2*n))
	v := &vocab{
		data:  make([]byte, 0, size),
		offs:  make([]uint32, n+1),
		slots: make([]uint32, nslots),
		mask:  uint64(nslots - 1),
	}
	for r, tok := range byRank {
		v.data = append(v.data, tok...)
		v.offs[r+1] = uint32(len(v.data))
		h := hashString(tok)
		i := h & v.mask
		for v.slots[i] != 0 {
			i = (i + 1) & v.mask
		}
		v.slots[i] = tag(h) | uint32(r+1)
	}
	return v, nil
}

func tag(h uint64) uint32 {
	return uint32(h>>(64-tagBits)) << rankBits
}

// rank returns the rank of token s, or false if s is not a token.
func (v *vocab) rank(s string) (int, bool) {
	h := hashString(s)
	t := tag(h)
	for i := h & v.mask; ; i = (i + 1) & v.mask {
		e := v.slots[i]
		if e == 0 {
			return 0, false
		}
		if e&^rankMask == t {
			r := e&rankMask - 1
			if string(v.data[v.offs[r]:v.offs[r+1]]) == s {
				return int(r), true
			}
		}
	}
}

// hashString is a small wyhash-style hash: the bytes read as whole words
// (the last ones overlapping), each folded in with a 64×64→128-bit multiply.
// It is inlined-cheap for the short strings a merge looks up, where a call
// into hash/maphash cost more than the probe. It needs no random seed: the
// table never grows from input, so a caller who finds colliding strings can
// at worst walk the longest probe run, fixed when the table was built.
func hashString(s string) uint64 {
	const k0, k1 = 0xa0761d6478bd642f, 0xe7037ed1a0b428db
	n := len(s)
	var a, b uint64
	switch {
	case n > 8:
		b = uint64(n)
		for i := 0; i+8 < n; i += 8 {
			b = mix(le64(s[i:])^k1, b^k0)
		}
		a = le64(s[n-8:])
	case n >= 4:
		a, b = le32(s), le32(s[n-4:])
	case n > 0:
		a = uint64(s[0])<<16 | uint64(s[n>>1])<<8 | uint64(s[n-1])
	}
	return mix(a^k1, b^k0^uint64(n))
}

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func le32(s string) uint64 {
	_ = s[3]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
}
