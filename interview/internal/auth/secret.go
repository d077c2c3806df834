package auth

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// LoadOrCreateSecret returns the secret kept in path, creating a random
// 32-byte one (mode 0600) on first use, so development sessions survive
// restarts without anyone choosing a secret.
func LoadOrCreateSecret(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		if len(b) < MinSecretBytes {
			return nil, fmt.Errorf("%s holds %d bytes, want at least %d", path, len(b), MinSecretBytes)
		}
		return b, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	secret := make([]byte, MinSecretBytes)
	_, _ = rand.Read(secret)
	// O_EXCL: if two processes race, the loser reads the winner's secret.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return LoadOrCreateSecret(path)
	}
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(secret); err != nil {
		f.Close()
		return nil, err
	}
	return secret, f.Close()
}
