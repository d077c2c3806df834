package auth

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"
)

// PollInterval is how often a Watch reads the keys file for changes. A
// file of a few hundred keys is read and hashed in microseconds.
const PollInterval = time.Second

// Watch keeps the accepted keys in step with a keys file: it reads the file
// again on a signal (SIGHUP) and whenever its content changes, and swaps
// the new set in whole. A file that does not parse is refused: the keys in
// use stay, and the error is logged once per content.
type Watch struct {
	// Path is the keys file.
	Path string
	// Env are JUDGE_API_KEYS' keys, accepted whatever the file says.
	Env *BearerKeys
	// Keys is the live set, replaced on every good change.
	Keys *BearerKeys
	// Apply, when set, is given every new set before it is swapped in, so
	// that the rate limits of a new key exist before the key is accepted.
	Apply func(next []BearerKey)
	// Logger hears what changed, and why a file was refused.
	Logger *slog.Logger
	// last is the SHA-256 of the content last read, good or bad.
	last [sha256.Size]byte
}

// LoadKeys reads the keys file at path and joins it with env's keys.
func LoadKeys(path string, env *BearerKeys) (*BearerKeys, error) {
	ks, _, err := loadKeys(path, env)
	return ks, err
}

func loadKeys(path string, env *BearerKeys) (*BearerKeys, [sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	f, err := os.Open(path)
	if err != nil {
		return nil, sum, fmt.Errorf("JUDGE_KEYS_FILE: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxKeysFile+1))
	if err != nil {
		return nil, sum, fmt.Errorf("JUDGE_KEYS_FILE: %w", err)
	}
	sum = sha256.Sum256(data)
	file, err := ParseKeysFile(data)
	if err != nil {
		return nil, sum, fmt.Errorf("JUDGE_KEYS_FILE %s: %w", path, err)
	}
	ks, err := Join(env, file)
	if err != nil {
		return nil, sum, fmt.Errorf("JUDGE_KEYS_FILE %s: %w", path, err)
	}
	return ks, sum, nil
}

// Run reloads on every value of hup and every PollInterval when the file's
// content changed, until ctx ends. Its first look always reloads, so a
// change made since w.Keys was read is not missed.
func (w *Watch) Run(ctx context.Context, hup <-chan os.Signal) {
	tick := time.NewTicker(PollInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			_ = w.Reload(true)
		case <-tick.C:
			_ = w.Reload(false)
		}
	}
}

// Reload reads the file and, when its content differs from the last read
// (or always, with force), swaps in its keys. It returns the error that
// kept the old keys, if any.
func (w *Watch) Reload(force bool) error {
	log := w.Logger
	if log == nil {
		log = slog.Default()
	}
	next, sum, err := loadKeys(w.Path, w.Env)
	if !force && sum == w.last {
		return err
	}
	w.last = sum
	if err != nil {
		log.Error("keys file refused; the keys in use stay", "err", err)
		return err
	}
	before := map[string]bool{}
	for _, k := range w.Keys.All() {
		before[k.ID] = true
	}
	added, kept := 0, 0
	for _, k := range next.All() {
		if before[k.ID] {
			kept++
			delete(before, k.ID)
		} else {
			added++
		}
	}
	if w.Apply != nil {
		w.Apply(next.All())
	}
	w.Keys.Replace(next)
	log.Info("keys file loaded", "keys", next.Len(), "added", added, "kept", kept, "removed", len(before))
	return nil
}
