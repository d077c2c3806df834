// Package wav repairs and checks RIFF/WAVE files.
//
// Speech engines that stream their output (espeak-ng --stdout, most
// OpenAI-compatible speech endpoints) write the WAV header before they know
// how long the audio is, so the RIFF size and the data size carry
// placeholders (0xFFFFFFFF, 0, or a large guess such as 0x7FFFF000). Browsers
// and players differ in how they treat such files; Fix writes the true sizes
// so every player agrees. Decode is the strict reader the tests hold Fix to.
package wav

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// ErrNotWAV is returned for input that does not start like a RIFF/WAVE file.
var ErrNotWAV = errors.New("wav: not a RIFF/WAVE file")

// ErrMalformed wraps every other reason a WAV is refused.
var ErrMalformed = errors.New("wav: malformed")

const (
	headerLen      = 12 // "RIFF", size, "WAVE"
	chunkHeaderLen = 8  // id, size
	placeholderMax = 0xFFFFFFFF
)

// Fix returns b with the RIFF size and the data chunk size set to what the
// bytes actually hold. A data chunk whose size is a placeholder (0 or
// 0xFFFFFFFF) or larger than what is left runs to the end of the file; a
// partial trailing frame is dropped and an odd-sized data chunk gets its pad
// byte. The RIFF size is never trusted: it is recomputed from the chunk walk.
//
// A file that is already right comes back as the same slice, byte for byte.
// Anything Fix returns without error passes Decode; input it cannot repair
// is an error (ErrNotWAV or ErrMalformed).
func Fix(b []byte) ([]byte, error) {
	if !hasHeader(b) {
		return nil, ErrNotWAV
	}
	var (
		out        []byte // nil until the first change; then a private copy
		blockAlign = 0
		off        = headerLen
	)
	ensureCopy := func() {
		if out == nil {
			out = bytes.Clone(b)
		}
	}
	cur := func() []byte {
		if out != nil {
			return out
		}
		return b
	}
	for off < len(cur()) {
		buf := cur()
		if len(buf)-off < chunkHeaderLen {
			// Trailing bytes too short to be a chunk: not part of any chunk,
			// so they cannot belong in a well-formed file.
			ensureCopy()
			out = out[:off]
			break
		}
		id := string(buf[off : off+4])
		size := int64(binary.LittleEndian.Uint32(buf[off+4:]))
		body := off + chunkHeaderLen
		remaining := int64(len(buf) - body)

		if id == "data" && (size == placeholderMax || size > remaining || (size == 0 && !tiles(buf[body:]))) {
			// Streamed data: everything to the end of the file is audio.
			n := remaining
			if blockAlign > 0 {
				n -= n % int64(blockAlign)
			}
			if n != size || n != remaining {
				ensureCopy()
				binary.LittleEndian.PutUint32(out[off+4:], uint32(n))
				out = out[:body+int(n)]
				if n%2 == 1 {
					out = append(out, 0)
				}
			}
			// The data ran to the end: nothing follows it.
			break
		}
		if size > remaining {
			return nil, fmt.Errorf("%w: chunk %q at %d claims %d bytes, %d left", ErrMalformed, printable(id), off, size, remaining)
		}
		if id == "fmt " && size >= 16 {
			blockAlign = int(binary.LittleEndian.Uint16(buf[body+12:]))
		}
		next := body + int(size)
		if size%2 == 1 {
			if next == len(buf) {
				// The last chunk lacks its pad byte; RIFF requires one.
				ensureCopy()
				out = append(out, 0)
			}
			next++
		}
		off = next
	}
	buf := cur()
	if len(buf)-8 > placeholderMax {
		return nil, fmt.Errorf("%w: larger than 4 GiB", ErrMalformed)
	}
	if riff := binary.LittleEndian.Uint32(buf[4:]); int64(riff) != int64(len(buf)-8) {
		ensureCopy()
		binary.LittleEndian.PutUint32(out[4:], uint32(len(out)-8))
	}
	res := cur()
	if _, err := Decode(res); err != nil {
		return nil, err
	}
	return res, nil
}

// tiles reports whether b is a whole sequence of chunks. It tells an empty
// data chunk followed by real chunks (kept) from a streamed data chunk whose
// size was left at 0 (repaired).
func tiles(b []byte) bool {
	off := 0
	for off < len(b) {
		if len(b)-off < chunkHeaderLen {
			return false
		}
		size := int64(binary.LittleEndian.Uint32(b[off+4:]))
		padded := size + size%2
		if padded > int64(len(b)-off-chunkHeaderLen) {
			return false
		}
		off += chunkHeaderLen + int(padded)
	}
	return true
}

func hasHeader(b []byte) bool {
	return len(b) >= headerLen && string(b[0:4]) == "RIFF" && string(b[8:12]) == "WAVE"
}

// Format is the sample encoding of a WAV file.
type Format int

// The encodings Decode accepts.
const (
	PCM   Format = 1
	Float Format = 3
)

func (f Format) String() string {
	switch f {
	case PCM:
		return "pcm"
	case Float:
		return "float"
	}
	return fmt.Sprintf("format(%d)", int(f))
}

// Info is what Decode learns from a well-formed file.
type Info struct {
	Format        Format
	Channels      int
	SampleRate    int
	BitsPerSample int
	BlockAlign    int
	DataOffset    int // offset of the first sample byte
	DataSize      int // bytes of audio, without a pad byte
}

// Frames is the number of sample frames (one sample per channel).
func (i Info) Frames() int { return i.DataSize / i.BlockAlign }

// Duration is the length of the audio.
func (i Info) Duration() time.Duration {
	return time.Duration(i.Frames()) * time.Second / time.Duration(i.SampleRate)
}

const (
	tagPCM        = 0x0001
	tagFloat      = 0x0003
	tagExtensible = 0xFFFE
)

// The KSDATAFORMAT_SUBTYPE GUIDs share these 14 trailing bytes; the first two
// bytes are the plain format tag.
var subtypeTail = []byte{0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71}

// Decode checks b strictly and describes it: the RIFF size equals the file
// length minus 8, chunks tile the file exactly (odd sizes followed by a pad
// byte), exactly one fmt chunk precedes exactly one data chunk, the format is
// integer PCM or IEEE float with self-consistent channels, rate, bits, block
// align and byte rate, and the data holds whole frames.
func Decode(b []byte) (Info, error) {
	var info Info
	if !hasHeader(b) {
		return info, ErrNotWAV
	}
	if riff := binary.LittleEndian.Uint32(b[4:]); int64(riff) != int64(len(b)-8) {
		return info, fmt.Errorf("%w: RIFF size %d, file holds %d", ErrMalformed, riff, len(b)-8)
	}
	var haveFmt, haveData bool
	off := headerLen
	for off < len(b) {
		if len(b)-off < chunkHeaderLen {
			return info, fmt.Errorf("%w: %d stray bytes at %d", ErrMalformed, len(b)-off, off)
		}
		id := string(b[off : off+4])
		size := int64(binary.LittleEndian.Uint32(b[off+4:]))
		body := off + chunkHeaderLen
		padded := size + size%2
		if padded > int64(len(b)-body) {
			return info, fmt.Errorf("%w: chunk %q at %d overruns the file", ErrMalformed, printable(id), off)
		}
		switch id {
		case "fmt ":
			if haveFmt {
				return info, fmt.Errorf("%w: second fmt chunk", ErrMalformed)
			}
			if haveData {
				return info, fmt.Errorf("%w: fmt chunk after data", ErrMalformed)
			}
			if err := parseFmt(b[body:body+int(size)], &info); err != nil {
				return info, err
			}
			haveFmt = true
		case "data":
			if !haveFmt {
				return info, fmt.Errorf("%w: data chunk before fmt", ErrMalformed)
			}
			if haveData {
				return info, fmt.Errorf("%w: second data chunk", ErrMalformed)
			}
			if size%int64(info.BlockAlign) != 0 {
				return info, fmt.Errorf("%w: data size %d is not whole frames of %d bytes", ErrMalformed, size, info.BlockAlign)
			}
			info.DataOffset, info.DataSize = body, int(size)
			haveData = true
		}
		off = body + int(padded)
	}
	if !haveFmt {
		return info, fmt.Errorf("%w: no fmt chunk", ErrMalformed)
	}
	if !haveData {
		return info, fmt.Errorf("%w: no data chunk", ErrMalformed)
	}
	return info, nil
}

func parseFmt(f []byte, info *Info) error {
	if len(f) < 16 {
		return fmt.Errorf("%w: fmt chunk of %d bytes", ErrMalformed, len(f))
	}
	tag := binary.LittleEndian.Uint16(f[0:])
	channels := int(binary.LittleEndian.Uint16(f[2:]))
	rate := binary.LittleEndian.Uint32(f[4:])
	byteRate := binary.LittleEndian.Uint32(f[8:])
	blockAlign := int(binary.LittleEndian.Uint16(f[12:]))
	bits := int(binary.LittleEndian.Uint16(f[14:]))
	if tag == tagExtensible {
		// WAVE_FORMAT_EXTENSIBLE: cbSize ≥ 22, then valid bits, channel mask
		// and the sub-format GUID whose first two bytes are the real tag.
		if len(f) < 40 || binary.LittleEndian.Uint16(f[16:]) < 22 {
			return fmt.Errorf("%w: short extensible fmt chunk", ErrMalformed)
		}
		if !bytes.Equal(f[26:40], subtypeTail) {
			return fmt.Errorf("%w: unknown extensible sub-format", ErrMalformed)
		}
		tag = binary.LittleEndian.Uint16(f[24:])
	}
	switch tag {
	case tagPCM:
		if bits != 8 && bits != 16 && bits != 24 && bits != 32 {
			return fmt.Errorf("%w: %d-bit PCM", ErrMalformed, bits)
		}
		info.Format = PCM
	case tagFloat:
		if bits != 32 && bits != 64 {
			return fmt.Errorf("%w: %d-bit float", ErrMalformed, bits)
		}
		info.Format = Float
	default:
		return fmt.Errorf("%w: format tag %#04x is neither PCM nor float", ErrMalformed, tag)
	}
	if channels < 1 || channels > 32 {
		return fmt.Errorf("%w: %d channels", ErrMalformed, channels)
	}
	if rate < 1000 || rate > 768000 {
		return fmt.Errorf("%w: sample rate %d", ErrMalformed, rate)
	}
	if blockAlign != channels*bits/8 {
		return fmt.Errorf("%w: block align %d, expected %d", ErrMalformed, blockAlign, channels*bits/8)
	}
	if uint64(byteRate) != uint64(rate)*uint64(blockAlign) {
		return fmt.Errorf("%w: byte rate %d, expected %d", ErrMalformed, byteRate, uint64(rate)*uint64(blockAlign))
	}
	info.Channels, info.SampleRate, info.BitsPerSample, info.BlockAlign = channels, int(rate), bits, blockAlign
	return nil
}

// printable keeps binary junk in a chunk id out of error messages and logs.
func printable(id string) string {
	for _, r := range []byte(id) {
		if r < 0x20 || r > 0x7e {
			return fmt.Sprintf("%x", id)
		}
	}
	return id
}
