package voice

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/judgeworks/interview"
)

// espeak synthesises text with the local espeak-ng. The text goes in on
// stdin, never as an argument or through a shell, so no text can become an
// option or a command. espeak-ng writes its WAV to stdout with placeholder
// sizes; the caller fixes them like any streamed WAV.
func espeak(ctx context.Context, path, text string, timeout time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--stdout")
	cmd.Stdin = strings.NewReader(text)
	var stdout limitedBuffer
	stdout.limit = maxSpeechWAV
	var stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	// A stuck child holding the pipes open must not hold the request.
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		msg := "local speech synthesis failed"
		if ctx.Err() != nil {
			msg = "local speech synthesis took too long"
		}
		return nil, interview.Wrap(fmt.Errorf("espeak-ng: %v: %s", err, cut(stderr.String(), 300)), interview.Upstream, msg)
	}
	return stdout.Bytes(), nil
}

var errTooMuchOutput = errors.New("output over limit")

// limitedBuffer fails the write that would take it past limit, which makes
// the child's write fail and the command end.
type limitedBuffer struct {
	bytes.Buffer
	limit int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.limit {
		return 0, errTooMuchOutput
	}
	return b.Buffer.Write(p)
}

var _ io.Writer = (*limitedBuffer)(nil)
