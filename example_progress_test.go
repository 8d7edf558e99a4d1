package houdini_test

import (
	"context"
	"log"
	"os"

	"github.com/houdini-opt/houdini"
)

// NewPrinter reports Minimize's progress: a line per accepted descent step, escape,
// purification, radius halving and restart. Here the descent phase leaves the saddle at
// the origin by a negative-curvature step (two Lanczos products) to the corner (0, −2),
// which the escape certifies; f being a nonconvex quadratic, the default search then
// restarts from the mirrored corner (0, 1), whose descent ends higher than (0, −2), so
// Minimize returns there.
func ExampleNewPrinter() {
	box, err := houdini.NewBox([]float64{-1, -2}, []float64{1, 1})
	if err != nil {
		log.Fatal(err)
	}
	s := houdini.Settings{Delta: 1e-3, Radius: 0.5, Progress: houdini.NewPrinter(os.Stdout)}
	if _, err := houdini.Minimize(context.Background(), saddle, box, []float64{0, 0}, s); err != nil {
		log.Fatal(err)
	}
	// Output:
	// event     escapes  descent       grad       decrease     radius  escape
	// descent         0        1          4              2        0.5
	// escape          1        1          6              2        0.5  certified (1 subsets)
	// restart         1        1          6            0.5        0.5
}
