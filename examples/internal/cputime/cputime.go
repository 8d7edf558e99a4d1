// Package cputime measures the CPU time of the running process for the example programs:
// on a machine shared with other work, wall times vary with the load and CPU times less so.
package cputime

import (
	"syscall"
	"time"
)

// Now returns the user + system CPU time of this process so far (0 where getrusage fails).
func Now() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
