package main

import "github.com/houdini-opt/houdini"

// fastModeAvailable reports whether the library has the fast mode (Settings.EscapesOnly).
const fastModeAvailable = true

// setEscapesOnly selects the paper's pure escape loop (true) or the fast mode (false).
func setEscapesOnly(s *houdini.Settings, escapesOnly bool) { s.EscapesOnly = escapesOnly }
