package main

import (
	"syscall"
	"time"
)

// cpuTime returns the user + system CPU time of this process so far: on a machine
// shared with other work, wall times vary with the load and CPU times less so.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
