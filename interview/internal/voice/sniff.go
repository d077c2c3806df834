package voice

import "bytes"

// Container is an audio file format recognised by its first bytes.
type Container struct {
	Name string // short name for logs
	Ext  string // file name extension the transcription endpoint expects
	MIME string
}

var (
	webm = Container{Name: "webm", Ext: ".webm", MIME: "audio/webm"}
	ogg  = Container{Name: "ogg", Ext: ".ogg", MIME: "audio/ogg"}
	wave = Container{Name: "wav", Ext: ".wav", MIME: "audio/wav"}
	m4a  = Container{Name: "m4a", Ext: ".m4a", MIME: "audio/mp4"}
	mp3  = Container{Name: "mp3", Ext: ".mp3", MIME: "audio/mpeg"}
	flac = Container{Name: "flac", Ext: ".flac", MIME: "audio/flac"}
)

// Sniff names the container of an audio upload from its magic bytes. The
// declared Content-Type and file name are never trusted: browsers disagree
// about them (Safari says video/mp4 for audio, Chrome appends codecs) and the
// transcription endpoint picks its decoder from the extension we send.
func Sniff(b []byte) (Container, bool) {
	switch {
	case bytes.HasPrefix(b, []byte{0x1A, 0x45, 0xDF, 0xA3}):
		// EBML: WebM from Chrome and Firefox MediaRecorder (Matroska too,
		// which the transcription endpoints read under the same name).
		return webm, true
	case bytes.HasPrefix(b, []byte("OggS")):
		return ogg, true
	case len(b) >= 12 && bytes.Equal(b[0:4], []byte("RIFF")) && bytes.Equal(b[8:12], []byte("WAVE")):
		return wave, true
	case len(b) >= 8 && bytes.Equal(b[4:8], []byte("ftyp")):
		// ISO base media (Safari records audio/mp4).
		return m4a, true
	case bytes.HasPrefix(b, []byte("ID3")):
		return mp3, true
	case len(b) >= 2 && isMPEGAudioFrame(b[0], b[1]):
		return mp3, true
	case bytes.HasPrefix(b, []byte("fLaC")):
		return flac, true
	}
	return Container{}, false
}

// isMPEGAudioFrame checks an MPEG audio frame header's first two bytes: the
// 11-bit frame sync, a defined version and a defined layer. Requiring a
// layer keeps out AAC ADTS streams (same sync, layer bits 00), which the
// transcription endpoints do not accept as mp3.
func isMPEGAudioFrame(b0, b1 byte) bool {
	if b0 != 0xFF || b1&0xE0 != 0xE0 {
		return false
	}
	version := (b1 >> 3) & 0x3
	layer := (b1 >> 1) & 0x3
	return version != 1 && layer != 0
}
