package voice

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// Tiny real headers: the first bytes of files recorded by the browsers the
// service serves.
var (
	// Chrome MediaRecorder audio/webm;codecs=opus: EBML header, DocType "webm".
	webmHeader = []byte{0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81, 0x01, 0x42, 0xF7, 0x81, 0x01, 0x42, 0xF2, 0x81, 0x04, 0x42, 0xF3, 0x81, 0x08, 0x42, 0x82, 0x84, 'w', 'e', 'b', 'm', 0x42, 0x87, 0x81, 0x04, 0x42, 0x85, 0x81, 0x02}
	// Safari MediaRecorder audio/mp4: an ftyp box with major brand "iso5".
	mp4Header = []byte{0x00, 0x00, 0x00, 0x1C, 'f', 't', 'y', 'p', 'i', 's', 'o', '5', 0x00, 0x00, 0x02, 0x00, 'i', 's', 'o', '5', 'i', 's', 'o', '6', 'm', 'p', '4', '1'}
	// An .m4a from an iPhone voice memo: major brand "M4A ".
	m4aHeader = []byte{0x00, 0x00, 0x00, 0x20, 'f', 't', 'y', 'p', 'M', '4', 'A', ' ', 0x00, 0x00, 0x00, 0x00, 'M', '4', 'A', ' ', 'm', 'p', '4', '2', 'i', 's', 'o', 'm', 0x00, 0x00, 0x00, 0x00}
	// An ID3v2.4 tag ahead of MP3 frames.
	id3Header = []byte{'I', 'D', '3', 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x23, 'T', 'S', 'S', 'E'}
	// A bare MPEG-1 Layer III frame header, 128 kbit/s, 44.1 kHz.
	mp3Frame = []byte{0xFF, 0xFB, 0x90, 0x44, 0x00, 0x00, 0x00, 0x00}
	// An MPEG-2 Layer III frame (22.05 kHz) as phone recorders write.
	mp3Frame2 = []byte{0xFF, 0xF3, 0x64, 0xC4, 0x00, 0x00}
)

func soxFile(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	if _, err := exec.LookPath("sox"); err != nil {
		t.Fatalf("sox is not installed (make deps installs it): %v", err)
	}
	p := filepath.Join(t.TempDir(), name)
	cmd := exec.Command("sox", append(append([]string{"-n"}, args...), p, "synth", "0.2", "sine", "440")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sox: %v: %s", err, out)
	}
	return readTestFile(t, p)
}

func TestSniff(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want Container
		ok   bool
	}{
		{"webm from Chrome", webmHeader, webm, true},
		{"mp4 from Safari", mp4Header, m4a, true},
		{"m4a", m4aHeader, m4a, true},
		{"mp3 with ID3", id3Header, mp3, true},
		{"mp3 bare frame", mp3Frame, mp3, true},
		{"mp3 MPEG-2 frame", mp3Frame2, mp3, true},
		{"ogg vorbis by sox", soxFile(t, "a.ogg", "-r", "16000", "-c", "1"), ogg, true},
		{"wav by sox", soxFile(t, "a.wav", "-r", "16000", "-c", "1", "-b", "16"), wave, true},
		{"flac by sox", soxFile(t, "a.flac", "-r", "16000", "-c", "1"), flac, true},
		{"aiff by sox is audio we do not send", soxFile(t, "a.aiff", "-r", "16000", "-c", "1"), Container{}, false},
		{"AAC ADTS shares the sync word but is not mp3", []byte{0xFF, 0xF1, 0x50, 0x80, 0x01, 0x3F, 0xFC}, Container{}, false},
		{"reserved MPEG version", []byte{0xFF, 0xEB, 0x90, 0x44}, Container{}, false},
		{"png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), Container{}, false},
		{"pdf", []byte("%PDF-1.7\n"), Container{}, false},
		{"json", []byte(`{"text":"hello"}`), Container{}, false},
		{"RIFF AVI", []byte("RIFF\x00\x00\x00\x00AVI LIST"), Container{}, false},
		{"truncated ftyp", []byte{0, 0, 0, 0x1C, 'f', 't'}, Container{}, false},
		{"one byte", []byte{0xFF}, Container{}, false},
		{"empty", nil, Container{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Sniff(tt.in)
			if ok != tt.ok || got != tt.want {
				t.Fatalf("Sniff = %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func FuzzSniff(f *testing.F) {
	for _, b := range [][]byte{webmHeader, mp4Header, id3Header, mp3Frame, []byte("OggS"), []byte("RIFF\x00\x00\x00\x00WAVE")} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, ok := Sniff(b)
		if ok != (c != Container{}) {
			t.Fatalf("ok=%v with container %+v", ok, c)
		}
		if ok && (c.Ext == "" || c.MIME == "") {
			t.Fatalf("container without extension or type: %+v", c)
		}
	})
}
