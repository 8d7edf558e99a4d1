// Package repo locates the repository's data files for the example programs, so that
// they run from the repository root or from their own directory (as their tests do).
package repo

import (
	"os"
	"path/filepath"
)

// Path resolves p, a path relative to the repository root such as
// "testdata/maxcut/er300_seed1.edges": when p does not exist as given, it returns p
// joined to the nearest directory above the working directory where it exists (the
// examples are a module of their own, in examples/, so the nearest go.mod is not the
// root). It returns p unchanged when p is absolute or found nowhere.
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
		if q := filepath.Join(dir, p); exists(q) {
			return q
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p
		}
		dir = parent
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
