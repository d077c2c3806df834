//go:build unix

package semantic

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used (user and system): on a
// machine shared with other work it measures the engine's cost where wall
// time also counts the waiting.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
