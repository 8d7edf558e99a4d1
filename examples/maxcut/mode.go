package main

import "github.com/houdini-opt/houdini"

// fastModeAvailable reports whether the library has the fast mode (Settings.EscapesOnly).
const fastModeAvailable = false

// setEscapesOnly selects the paper's pure escape loop (true) or the fast mode (false).
// The core has only the pure loop until Settings.EscapesOnly lands on main.
func setEscapesOnly(s *houdini.Settings, escapesOnly bool) {}
