package houdini

import (
	"fmt"
	"io"
	"strings"
)

// Event says what Minimize just did, in a Progress report.
type Event int

// The events of Settings.Progress.
const (
	EventDescentStep  Event = iota + 1 // an accepted step of the descent phase
	EventEscape                        // an escape ended: a move, a certificate, or neither (Progress.Escape)
	EventPurification                  // Purify moved a certified point to a wall
	EventRadiusHalved                  // the model promised a decrease f did not deliver: r was halved
	EventRestart                       // Settings.Search restarted from a point away from the best certified one
	EventFlatMove                      // an escape could not decide: x moved to a wall where f does not rise (Settings.NoFlatMoves)
)

var eventNames = [...]string{"", "descent", "escape", "purify", "halve r", "restart", "flat move"}

// String names the event.
func (e Event) String() string {
	if e == 0 {
		return "Event(?)"
	}
	return enumName(e, eventNames[:], "Event")
}

// Progress is one report of Minimize to Settings.Progress.
type Progress struct {
	// Event says what was just done.
	Event Event
	// X is the current point, after the event. It is Minimize's own slice: read it during
	// the call, copy it to keep it, and never modify it.
	X []float64
	// Decrease is f(x0) − f(X) so far.
	Decrease float64
	// Radius is the current r.
	Radius float64
	// Escape is the escape's result for EventEscape, else nil. Read-only.
	Escape *EscapeResult
	// Stats counts the work so far (Runtime included).
	Stats Stats
}

// NewPrinter returns a Settings.Progress function that writes one line per report to w:
// the event, the escapes, descent steps and gradient calls so far, the decrease
// f(x0) − f(X) and r; for an escape also what it found. Like gonum/optimize's Printer, it
// is meant for watching a long run (w = os.Stderr). Write errors are ignored.
func NewPrinter(w io.Writer) func(Progress) {
	header := false
	return func(p Progress) {
		if !header {
			fmt.Fprintf(w, "%-8s %8s %8s %10s %14s %10s  %s\n", "event", "escapes", "descent", "grad", "decrease", "radius", "escape")
			header = true
		}
		what := ""
		if e := p.Escape; e != nil {
			switch {
			case e.Found:
				what = fmt.Sprintf("move by %v, decrease %.6g", e.Case, e.Decrease)
			case e.Certified:
				what = "certified"
			default:
				what = "no move, not certified"
			}
			what += fmt.Sprintf(" (%d subsets)", e.Examined)
		}
		st := p.Stats
		line := fmt.Sprintf("%-8v %8d %8d %10d %14.8g %10.4g  %s", p.Event, st.Escapes, st.DescentSteps, st.GradEvals, p.Decrease, p.Radius, what)
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
}
