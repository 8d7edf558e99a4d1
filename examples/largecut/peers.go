package main

import (
	"math"
	"math/rand/v2"
	"sort"
)

// The peers written in Go: the 1-flip local search and the rank-2 heuristic of Burer,
// Monteiro & Zhang. Both return a ±1 vector; the cut is Graph.Cut of it.

// flipGain returns the change of the cut weight when vertex v of the ±1 vector s moves
// to the other side: Σⱼ wᵥⱼ sᵥsⱼ (edges to its side become cut, edges across uncut).
func (g *Graph) flipGain(s []float64, v int) float64 {
	var gain float64
	for p := g.Off[v]; p < g.Off[v+1]; p++ {
		gain += g.W[p] * s[g.Nbr[p]]
	}
	return gain * s[v]
}

// OneFlip runs the 1-flip local search from s (±1, changed in place): sweeps over the
// vertices flipping every vertex whose flip raises the cut weight, until a sweep flips
// none. Each flip raises the cut, so it ends at a 1-flip local optimum. It returns the
// number of flips.
func (g *Graph) OneFlip(s []float64) int {
	flips := 0
	for changed := true; changed; {
		changed = false
		for v := 0; v < g.N; v++ {
			if g.flipGain(s, v) > 0 {
				s[v] = -s[v]
				flips++
				changed = true
			}
		}
	}
	return flips
}

// PeerResult is the best of several runs of a heuristic.
type PeerResult struct {
	X         []float64 // ±1
	Cut       float64   // weight
	GradCalls int       // over all runs (BMZ)
	Flips     int       // over all runs (OneFlip)
}

// BestOneFlip returns the best of runs 1-flip local searches from uniform random ±1
// starts drawn from rng.
func (g *Graph) BestOneFlip(runs int, rng *rand.Rand) PeerResult {
	best := PeerResult{Cut: math.Inf(-1)}
	for r := 0; r < runs; r++ {
		s := make([]float64, g.N)
		for i := range s {
			s[i] = float64(2*rng.IntN(2) - 1)
		}
		best.Flips += g.OneFlip(s)
		if c, _ := g.Cut(s); c > best.Cut {
			best.Cut, best.X = c, s
		}
	}
	return best
}

// bmzAngleFunc returns Σ_{ij ∈ E} wᵢⱼ cos(θᵢ − θⱼ), the rank-2 relaxation's objective of
// Burer, Monteiro & Zhang (2002), "Rank-two relaxation heuristics for MAX-CUT and other
// binary quadratic programs", SIAM J. Optim. 12(2):503–521 (their f(θ) with vᵢ =
// (cos θᵢ, sin θᵢ)), and writes its gradient −Σⱼ wᵢⱼ sin(θᵢ − θⱼ) into grad when not nil.
func (g *Graph) bmzAngleFunc(theta, grad []float64) float64 {
	if grad != nil {
		for i := range grad {
			grad[i] = 0
		}
	}
	var f float64
	for k := range g.I {
		i, j := g.I[k], g.J[k]
		d := theta[i] - theta[j]
		f += g.EW[k] * math.Cos(d)
		if grad != nil {
			s := g.EW[k] * math.Sin(d)
			grad[i] -= s
			grad[j] += s
		}
	}
	return f
}

// AngleSweep returns the best cut among the n cuts of the angles θ by a line through
// the origin (BMZ's Procedure-CUT): xᵢ = +1 when θᵢ mod 2π ∈ [α, α + π), −1 otherwise,
// for every α ∈ [0, π). As α grows each vertex changes side once, at α = θᵢ mod π, so
// one sort and one pass with flip gains cost O(n log n + m).
func (g *Graph) AngleSweep(theta []float64) (x []float64, cut float64) {
	x = make([]float64, g.N)
	at := make([]float64, g.N)
	order := make([]int, g.N)
	for i, t := range theta {
		t = math.Mod(t, 2*math.Pi)
		if t < 0 {
			t += 2 * math.Pi
		}
		x[i] = 1
		if t >= math.Pi {
			x[i] = -1
		}
		at[i] = math.Mod(t, math.Pi)
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return at[order[a]] < at[order[b]] })
	cut, _ = g.Cut(x)
	best, bestK := cut, 0
	for k, v := range order {
		cut += g.flipGain(x, v)
		x[v] = -x[v]
		if cut > best {
			best, bestK = cut, k+1
		}
	}
	// x is now the α = π partition, the negation of α = 0's; replay to the best prefix.
	for i := range x {
		x[i] = -x[i]
	}
	for _, v := range order[:bestK] {
		x[v] = -x[v]
	}
	return x, best
}

// BMZ runs the rank-2 heuristic runs times: θ uniform on [0, 2π)ⁿ from rng, a local
// minimum of the angle function by L-BFGS (lbfgs.go), then AngleSweep; it returns
// the best cut. Burer, Monteiro & Zhang perturb and restart from the best θ (CirCut);
// independent starts are the simpler variant asked here.
func (g *Graph) BMZ(runs int, rng *rand.Rand) PeerResult {
	best := PeerResult{Cut: math.Inf(-1)}
	for r := 0; r < runs; r++ {
		theta := make([]float64, g.N)
		for i := range theta {
			theta[i] = 2 * math.Pi * rng.Float64()
		}
		// The gradient's entries are sums of at most deg(v) sines: 1e-6 in the max-norm is
		// far below what changes the sweep's cut.
		best.GradCalls += lbfgs(g.bmzAngleFunc, theta, 10, 2000, 1e-6, 1e-12)
		if x, c := g.AngleSweep(theta); c > best.Cut {
			best.Cut, best.X = c, x
		}
	}
	return best
}
