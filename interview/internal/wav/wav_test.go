package wav

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// run executes a tool the test setup needs and returns its stdout. The
// Makefile's test target installs espeak-ng and sox; running the tests
// without them is a setup error, not a reason to pass silently.
func run(t testing.TB, name string, args ...string) []byte {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Fatalf("%s is not installed (make deps installs it): %v", name, err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v: %s", name, args, err, stderr.String())
	}
	return out
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// chunk builds one RIFF chunk with the given declared size, adding the pad
// byte for odd-sized bodies.
func chunk(id string, size uint32, body []byte) []byte {
	b := []byte(id)
	b = binary.LittleEndian.AppendUint32(b, size)
	b = append(b, body...)
	if len(body)%2 == 1 {
		b = append(b, 0)
	}
	return b
}

func riff(size uint32, chunks ...[]byte) []byte {
	b := []byte("RIFF")
	b = binary.LittleEndian.AppendUint32(b, size)
	b = append(b, "WAVE"...)
	for _, c := range chunks {
		b = append(b, c...)
	}
	return b
}

// fmtPCM is a 16-bit mono 16 kHz PCM fmt chunk.
func fmtPCM(channels, rate, bits int) []byte {
	f := binary.LittleEndian.AppendUint16(nil, 1)
	f = binary.LittleEndian.AppendUint16(f, uint16(channels))
	f = binary.LittleEndian.AppendUint32(f, uint32(rate))
	f = binary.LittleEndian.AppendUint32(f, uint32(rate*channels*bits/8))
	f = binary.LittleEndian.AppendUint16(f, uint16(channels*bits/8))
	f = binary.LittleEndian.AppendUint16(f, uint16(bits))
	return chunk("fmt ", 16, f)
}

func samples(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + 3)
	}
	return b
}

func setSize(b []byte, off int, size uint32) []byte {
	b = bytes.Clone(b)
	binary.LittleEndian.PutUint32(b[off:], size)
	return b
}

func TestFixRealFiles(t *testing.T) {
	dir := t.TempDir()
	const text = "Tell me about a time you disagreed with a colleague."
	espeakFile := filepath.Join(dir, "espeak.wav")
	run(t, "espeak-ng", "-w", espeakFile, text)
	espeakWritten := readFile(t, espeakFile)
	espeakStreamed := run(t, "espeak-ng", "--stdout", text)

	sox := func(name string, args ...string) []byte {
		p := filepath.Join(dir, name)
		run(t, "sox", append(append([]string{"-n"}, args...), p, "synth", "0.05", "sine", "440")...)
		return readFile(t, p)
	}
	soxPCM16 := sox("pcm16.wav", "-r", "16000", "-c", "1", "-b", "16")
	soxStereo := sox("stereo.wav", "-r", "22050", "-c", "2", "-b", "16")
	soxExtensible := sox("ext32.wav", "-r", "8000", "-c", "1", "-b", "32") // WAVE_FORMAT_EXTENSIBLE + fact
	soxFloat := sox("float.wav", "-r", "8000", "-c", "1", "-b", "32", "-e", "floating-point")
	// 5 one-byte samples: an odd data chunk followed by its pad byte.
	soxOdd := readFile(t, func() string {
		p := filepath.Join(dir, "odd.wav")
		run(t, "sox", "-n", "-r", "8000", "-c", "1", "-b", "8", "-e", "unsigned", p, "synth", "0.000625", "sine", "440")
		return p
	}())
	soxStreamed := run(t, "sox", "-n", "-r", "16000", "-c", "2", "-b", "16", "-t", "wav", "-", "synth", "0.05", "sine", "440")

	// A LIST chunk of odd size (with its pad) between fmt and data, as
	// some encoders write, in a real espeak-ng file whose sizes are
	// placeholders.
	list := chunk("LIST", 13, []byte("INFOISFT\x01\x00\x00\x00x"))
	withList := append(append(bytes.Clone(espeakStreamed[:36]), list...), espeakStreamed[36:]...)
	withListFixed := append(append(bytes.Clone(espeakWritten[:36]), list...), espeakWritten[36:]...)
	binary.LittleEndian.PutUint32(withListFixed[4:], uint32(len(withListFixed)-8))

	tests := []struct {
		name string
		in   []byte
		want []byte // nil: only check that the result decodes and sizes match
		same bool   // the result must be the input slice itself
	}{
		{name: "espeak-ng -w file is already right", in: espeakWritten, want: espeakWritten, same: true},
		{name: "espeak-ng --stdout placeholders", in: espeakStreamed, want: espeakWritten},
		{name: "espeak-ng --stdout with odd LIST before data", in: withList, want: withListFixed},
		{name: "sox 16-bit mono", in: soxPCM16, want: soxPCM16, same: true},
		{name: "sox 16-bit stereo", in: soxStereo, want: soxStereo, same: true},
		{name: "sox 32-bit extensible with fact", in: soxExtensible, want: soxExtensible, same: true},
		{name: "sox float with fact", in: soxFloat, want: soxFloat, same: true},
		{name: "sox 8-bit odd data with pad", in: soxOdd, want: soxOdd, same: true},
		{name: "sox streamed to stdout", in: soxStreamed},
		{name: "RIFF and data 0xFFFFFFFF", in: setSize(setSize(espeakWritten, 4, 0xFFFFFFFF), 40, 0xFFFFFFFF), want: espeakWritten},
		{name: "RIFF and data 0", in: setSize(setSize(espeakWritten, 4, 0), 40, 0), want: espeakWritten},
		{name: "only RIFF size wrong", in: setSize(espeakWritten, 4, 36), want: espeakWritten},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Fix(tt.in)
			if err != nil {
				t.Fatalf("Fix: %v", err)
			}
			info, err := Decode(got)
			if err != nil {
				t.Fatalf("fixed file fails the strict decoder: %v", err)
			}
			if info.DataSize == 0 {
				t.Fatal("no audio left after fixing")
			}
			if tt.want != nil && !bytes.Equal(got, tt.want) {
				t.Fatalf("fixed bytes differ from the expected file (len %d, want %d)", len(got), len(tt.want))
			}
			if tt.same && &got[0] != &tt.in[0] {
				t.Fatal("a correct file was copied instead of returned as is")
			}
			if !tt.same && bytes.Equal(got, tt.in) {
				t.Fatal("input needed fixing but came back unchanged")
			}
			if riff := binary.LittleEndian.Uint32(got[4:]); int(riff) != len(got)-8 {
				t.Fatalf("RIFF size %d, file %d", riff, len(got))
			}
		})
	}
}

func TestFixEspeakInfo(t *testing.T) {
	got, err := Fix(run(t, "espeak-ng", "--stdout", "one two three"))
	if err != nil {
		t.Fatal(err)
	}
	info, err := Decode(got)
	if err != nil {
		t.Fatal(err)
	}
	// espeak-ng speaks 16-bit mono at 22050 Hz; three words last well over
	// half a second.
	if info.Format != PCM || info.Channels != 1 || info.SampleRate != 22050 || info.BitsPerSample != 16 {
		t.Fatalf("unexpected format %+v", info)
	}
	if d := info.Duration(); d < 500_000_000 {
		t.Fatalf("duration %v is too short for three words", d)
	}
}

func TestFixHandBuilt(t *testing.T) {
	f := fmtPCM(1, 16000, 16)
	audio := samples(100)
	right := riff(uint32(4+len(f)+8+len(audio)), f, chunk("data", 100, audio))
	odd8 := fmtPCM(1, 8000, 8)
	list := chunk("LIST", 5, []byte("INFOx"))

	tests := []struct {
		name string
		in   []byte
		want []byte
	}{
		{
			name: "already right",
			in:   right,
			want: right,
		},
		{
			name: "placeholders 0xFFFFFFFF",
			in:   riff(0xFFFFFFFF, f, chunk("data", 0xFFFFFFFF, audio)),
			want: right,
		},
		{
			name: "placeholders 0",
			in:   riff(0, f, chunk("data", 0, audio)),
			want: right,
		},
		{
			name: "data size larger than the file",
			in:   riff(0x7FFFF024, f, chunk("data", 0x7FFFF000, audio)),
			want: right,
		},
		{
			name: "partial trailing frame dropped",
			in:   riff(0, f, chunk("data", 0, append(bytes.Clone(audio), 0x55))[:8+101]),
			want: right,
		},
		{
			name: "odd LIST chunk with pad before streamed data",
			in:   riff(0, f, list, chunk("data", 0xFFFFFFFF, audio)),
			want: riff(uint32(4+len(f)+len(list)+8+len(audio)), f, list, chunk("data", 100, audio)),
		},
		{
			name: "odd streamed data gets its pad byte",
			in:   riff(0xFFFFFFFF, odd8, chunk("data", 0xFFFFFFFF, samples(7))[:8+7]),
			want: riff(uint32(4+len(odd8)+8+8), odd8, chunk("data", 7, samples(7))),
		},
		{
			name: "odd last chunk missing its pad byte",
			in:   riff(uint32(4+len(odd8)+8+7), odd8, chunk("data", 7, samples(7))[:8+7]),
			want: riff(uint32(4+len(odd8)+8+8), odd8, chunk("data", 7, samples(7))),
		},
		{
			name: "chunk after data kept",
			in:   riff(0, f, chunk("data", 100, audio), list),
			want: riff(uint32(4+len(f)+8+len(audio)+len(list)), f, chunk("data", 100, audio), list),
		},
		{
			name: "empty data followed by a real chunk is not a placeholder",
			in:   riff(uint32(4+len(f)+8+len(list)), f, chunk("data", 0, nil), list),
			want: riff(uint32(4+len(f)+8+len(list)), f, chunk("data", 0, nil), list),
		},
		{
			name: "stray trailing bytes dropped",
			in:   append(bytes.Clone(right), 1, 2, 3),
			want: right,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Fix(tt.in)
			if err != nil {
				t.Fatalf("Fix: %v", err)
			}
			if !bytes.Equal(got, tt.want) {
				t.Fatalf("got\n% x\nwant\n% x", got, tt.want)
			}
			if _, err := Decode(got); err != nil {
				t.Fatalf("strict decoder refuses the result: %v", err)
			}
		})
	}
}

func TestFixRefuses(t *testing.T) {
	f := fmtPCM(1, 16000, 16)
	audio := samples(100)
	badAlign := bytes.Clone(f)
	binary.LittleEndian.PutUint16(badAlign[8+12:], 3)
	mulaw := bytes.Clone(f)
	binary.LittleEndian.PutUint16(mulaw[8:], 7)

	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, ErrNotWAV},
		{"text", []byte("hello, this is not audio at all"), ErrNotWAV},
		{"ogg", []byte("OggS\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00"), ErrNotWAV},
		{"RIFF but AVI", riff(4, nil)[:8], ErrNotWAV},
		{"RIFF AVI", append([]byte("RIFF\x04\x00\x00\x00AVI "), f...), ErrNotWAV},
		{"header only", riff(4), ErrMalformed},
		{"no fmt", riff(0, chunk("data", 0, audio)), ErrMalformed},
		{"no data", riff(0, f), ErrMalformed},
		{"fmt chunk overruns", riff(0, chunk("fmt ", 400, f[8:])), ErrMalformed},
		{"bad block align", riff(0, badAlign, chunk("data", 0, audio)), ErrMalformed},
		{"mu-law is not PCM", riff(0, mulaw, chunk("data", 0, audio)), ErrMalformed},
		{"short fmt", riff(0, chunk("fmt ", 4, []byte{1, 0, 1, 0}), chunk("data", 0, audio)), ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Fix(tt.in)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if got != nil {
				t.Fatal("returned bytes along with an error")
			}
		})
	}
}

func TestDecodeStrict(t *testing.T) {
	f := fmtPCM(2, 44100, 16)
	audio := samples(400)
	right := riff(uint32(4+len(f)+8+len(audio)), f, chunk("data", 400, audio))
	info, err := Decode(right)
	if err != nil {
		t.Fatal(err)
	}
	want := Info{Format: PCM, Channels: 2, SampleRate: 44100, BitsPerSample: 16, BlockAlign: 4, DataOffset: 12 + len(f) + 8, DataSize: 400}
	if info != want {
		t.Fatalf("info = %+v, want %+v", info, want)
	}
	if info.Frames() != 100 {
		t.Fatalf("frames = %d", info.Frames())
	}

	bad := map[string][]byte{
		"RIFF size placeholder":  setSize(right, 4, 0xFFFFFFFF),
		"data size placeholder":  setSize(right, 12+len(f)+4, 0),
		"data not whole frames":  riff(uint32(4+len(f)+8+len(audio)-2), f, chunk("data", 398, audio[:398])),
		"trailing byte":          append(bytes.Clone(right), 0),
		"missing pad byte":       riff(uint32(4+len(f)+8+3), fmtPCM(1, 8000, 8), chunk("data", 3, []byte{1, 2, 3})[:11]),
		"fmt after data":         riff(uint32(4+8+len(audio)+len(f)), chunk("data", 400, audio), f),
		"two data chunks":        riff(uint32(4+len(f)+2*(8+len(audio))), f, chunk("data", 400, audio), chunk("data", 400, audio)),
		"two fmt chunks":         riff(uint32(4+2*len(f)+8+len(audio)), f, f, chunk("data", 400, audio)),
		"not a WAV":              []byte("ID3\x04\x00\x00\x00\x00\x00\x00"),
		"zero channels fmt":      riff(uint32(4+len(fmtPCM(0, 8000, 16))+8), fmtPCM(0, 8000, 16), chunk("data", 0, nil)),
		"absurd sample rate fmt": riff(uint32(4+len(fmtPCM(1, 10, 16))+8), fmtPCM(1, 10, 16), chunk("data", 0, nil)),
	}
	for name, b := range bad {
		t.Run(name, func(t *testing.T) {
			if _, err := Decode(b); err == nil {
				t.Fatal("strict decoder accepted a malformed file")
			}
		})
	}
}

func FuzzFix(f *testing.F) {
	fm := fmtPCM(1, 16000, 16)
	f.Add(riff(0xFFFFFFFF, fm, chunk("data", 0xFFFFFFFF, samples(10))))
	f.Add(riff(0, fm, chunk("LIST", 3, []byte("abc")), chunk("data", 0, samples(7))))
	f.Add(riff(uint32(4+len(fm)+8+4), fm, chunk("data", 4, samples(4))))
	f.Add([]byte("RIFF\x00\x00\x00\x00WAVE"))
	f.Add([]byte("OggS"))
	if b, err := exec.Command("espeak-ng", "--stdout", "hi").Output(); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		orig := bytes.Clone(in)
		out, err := Fix(in)
		if !bytes.Equal(in, orig) {
			t.Fatal("Fix modified its input")
		}
		if err != nil {
			if out != nil {
				t.Fatal("bytes returned with an error")
			}
			return
		}
		if _, err := Decode(out); err != nil {
			t.Fatalf("Fix output refused by the strict decoder: %v", err)
		}
		// Fixing is idempotent: a fixed file is a right file.
		again, err := Fix(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("second Fix changed a fixed file: %v", err)
		}
		if _, err := Decode(in); err == nil && !bytes.Equal(out, in) {
			t.Fatal("a file the strict decoder accepts was changed")
		}
	})
}

// BenchmarkFix measures repairing a streamed 10-second clip (22.05 kHz 16-bit
// mono, as espeak-ng writes), the work added to every speech request.
func BenchmarkFix(b *testing.B) {
	f := fmtPCM(1, 22050, 16)
	in := riff(0xFFFFFFFF, f, chunk("data", 0xFFFFFFFF, samples(22050*2*10)))
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := Fix(in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFixAlreadyRight is the path of a provider that sends true sizes:
// a check, no copy.
func BenchmarkFixAlreadyRight(b *testing.B) {
	f := fmtPCM(1, 22050, 16)
	audio := samples(22050 * 2 * 10)
	in := riff(uint32(4+len(f)+8+len(audio)), f, chunk("data", uint32(len(audio)), audio))
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := Fix(in); err != nil {
			b.Fatal(err)
		}
	}
}
