package houdini

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// eps is the float64 unit roundoff ε = 2⁻⁵² used to scale the numerical guards.
const eps = 0x1p-52

func dot(x, y []float64) float64 { return floats.Dot(x, y) }

// norm is ‖x‖₂, computed without overflow (gonum scales it).
func norm(x []float64) float64 { return floats.Norm(x, 2) }

// dist returns ‖x − y‖₂.
func dist(x, y []float64) float64 { return floats.Distance(x, y, 2) }

// allFinite returns the index of the first NaN or Inf in x, or -1.
func allFinite(x []float64) int {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return i
		}
	}
	return -1
}
