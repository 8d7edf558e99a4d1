// Package repo locates the repository's files for the example programs, so that they run
// from the repository root or from their own directory (as their tests do).
package repo

import (
	"os"
	"path/filepath"
)

// Path resolves p relative to the repository root (the nearest directory above the
// working directory holding go.mod) when p does not exist as given.
func Path(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	if _, err := os.Stat(p); err == nil {
		return p
	}
	dir, err := os.Getwd()
	if err != nil {
		return p
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, p)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p
		}
		dir = parent
	}
}
