package voice

import (
	"testing"

	"github.com/judgeworks/interview/internal/voice/voicetest"
)

func TestSniff(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want Container
		ok   bool
	}{
		{"webm from Chrome", voicetest.WebMHeader, webm, true},
		{"mp4 from Safari", voicetest.MP4Header, m4a, true},
		{"m4a", voicetest.M4AHeader, m4a, true},
		{"mp3 with ID3", voicetest.ID3Header, mp3, true},
		{"mp3 bare frame", voicetest.MP3Frame, mp3, true},
		{"mp3 MPEG-2 frame", voicetest.MP3Frame2, mp3, true},
		{"ogg vorbis by sox", voicetest.Sox(t, "a.ogg", "-r", "16000", "-c", "1"), ogg, true},
		{"wav by sox", voicetest.Sox(t, "a.wav", "-r", "16000", "-c", "1", "-b", "16"), wave, true},
		{"flac by sox", voicetest.Sox(t, "a.flac", "-r", "16000", "-c", "1"), flac, true},
		{"aiff by sox is audio we do not send", voicetest.Sox(t, "a.aiff", "-r", "16000", "-c", "1"), Container{}, false},
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
	for _, b := range [][]byte{voicetest.WebMHeader, voicetest.MP4Header, voicetest.ID3Header, voicetest.MP3Frame, []byte("OggS"), []byte("RIFF\x00\x00\x00\x00WAVE")} {
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
