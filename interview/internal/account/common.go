package account

import (
	_ "embed"
	"strings"
	"sync"
)

// commonPasswords is a short list of the passwords people choose most, as
// published lists of leaked passwords rank them (those of at least
// MinPasswordChars characters, which are the only ones the length rule lets
// through), one a line. It is kept short on purpose: it stops the guesses an
// attacker tries first, not every weak password.
//
//go:embed common_passwords.txt
var commonPasswordList string

var commonPasswords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, line := range strings.Split(commonPasswordList, "\n") {
		if p := strings.TrimSpace(line); p != "" && !strings.HasPrefix(p, "#") {
			m[strings.ToLower(p)] = true
		}
	}
	return m
})

// isCommon reports whether password is on the list, whatever its case.
func isCommon(password string) bool { return commonPasswords()[strings.ToLower(password)] }
