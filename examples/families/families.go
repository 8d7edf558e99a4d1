package main

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Family is one benchmark family: its instances, the meaning of its "center" start, and
// the δ and r of houdini's certificate (see README.md, "Radius", for why these).
type Family struct {
	Name, Title string
	Center      string // what the start named "center" is
	Delta       float64
	Radius      float64
	generate    func(seed uint64) []*Instance
}

// Families lists the benchmark, in the order it prints. Instance k of family f draws from
// rand.NewPCG(seed, f<<32|k) and its random start from rand.NewPCG(seed^startSalt, f<<32|k),
// so one instance does not change when another is added.
var Families = []Family{
	{"stqp", "StQP ½xᵀQx on the simplex", "barycentre 1/n", 1e-3, 0.1, genStQP},
	{"ms-gnp", "Motzkin–Straus −xᵀAx, G(n, ½)", "barycentre 1/n", 1e-5, 0.05, genMSGnp},
	{"ms-vt", "Motzkin–Straus −xᵀAx, Hamming/Johnson", "barycentre 1/n", 1e-5, 0.05, genMSVT},
	{"balcut", "balanced max-cut ½xᵀAx, [−1,1]ⁿ, Σx = 0", "zero", 1e-2, 0.2, genBalCut},
	{"portfolio", "budget portfolio ½xᵀHx − μᵀx", "zero", 1e-4, 0.05, genPortfolio},
	{"boxqp", "BoxQP max ½xᵀQx + cᵀx on [0,1]ⁿ", "centre ½·1", 1e-3, 0.3, genBoxQP},
}

// startSalt separates the random starts' streams from the instances'.
const startSalt = 0x5eed5eed5eed5eed

// rngs returns the generators of instance k of family f.
func rngs(seed uint64, f, k int) (inst, start *rand.Rand) {
	stream := uint64(f)<<32 | uint64(k)
	return rand.New(rand.NewPCG(seed, stream)), rand.New(rand.NewPCG(seed^startSalt, stream))
}

// Sizes of the families (the ranges; kept modest so that houdini's side runs in
// a few minutes).
var (
	stqpSizes      = []int{10, 10, 15, 20, 30, 50, 75, 100}
	msGnpSizes     = []int{20, 50, 100, 200}
	balCutSizes    = []int{20, 50, 100, 200, 300}
	portfolioSizes = []int{10, 10, 50, 50, 50, 50}
	boxqpShapes    = [][2]int{{20, 100}, {30, 50}, {50, 20}, {70, 100}, {70, 50}, {100, 50}, {125, 100}, {125, 20}}
)

// Exact references by enumeration are computed up to these sizes.
const (
	kktMaxSimplex   = 20 // 2ⁿ supports
	kktMaxPortfolio = 12 // 2·3ⁿ active sets
	vertexMaxCut    = 24 // C(n, n/2)/2 balanced vertices
)

func genStQP(seed uint64) []*Instance {
	var out []*Instance
	for k, n := range stqpSizes {
		rng, srng := rngs(seed, 0, k)
		in := StQP(n, rng)
		in.Name = fmt.Sprintf("%s-%d", in.Name, k)
		simplexStarts(in, srng)
		if n <= kktMaxSimplex {
			in.Ref, _ = KKTMin(in)
			in.RefKind = "exact: KKT enumeration"
		}
		out = append(out, in)
	}
	return out
}

func genMSGnp(seed uint64) []*Instance {
	var out []*Instance
	for k, n := range msGnpSizes {
		rng, srng := rngs(seed, 1, k)
		in := MotzkinStraus(fmt.Sprintf("ms-gnp-n%03d", n), "ms-gnp", Gnp(n, 0.5, rng))
		simplexStarts(in, srng)
		out = append(out, in)
	}
	return out
}

// vtGraphs are the vertex-transitive graphs: Hamming H(d, q) and Johnson J(n, k), each
// with a positive second adjacency eigenvalue, so that the barycentre is a strict saddle.
var vtGraphs = []struct {
	kind string
	a, b int
}{{"H", 2, 5}, {"H", 4, 3}, {"H", 2, 10}, {"H", 3, 5}, {"J", 6, 3}, {"J", 8, 3}, {"J", 10, 3}, {"J", 9, 4}}

func genMSVT(seed uint64) []*Instance {
	var out []*Instance
	for k, gr := range vtGraphs {
		_, srng := rngs(seed, 2, k)
		var g Graph
		switch gr.kind {
		case "H":
			g = Hamming(gr.a, gr.b)
		case "J":
			g = Johnson(gr.a, gr.b)
		}
		in := MotzkinStraus(fmt.Sprintf("ms-%s%d-%d", gr.kind, gr.a, gr.b), "ms-vt", g)
		simplexStarts(in, srng)
		out = append(out, in)
	}
	return out
}

func genBalCut(seed uint64) []*Instance {
	var out []*Instance
	for k, n := range balCutSizes {
		rng, srng := rngs(seed, 3, k)
		in := BalancedCut(fmt.Sprintf("balcut-n%03d", n), Gnp(n, 0.05, rng))
		perm := srng.Perm(n)
		x := make([]float64, n)
		for i := 0; i+1 < n; i += 2 { // ±v in pairs: Σx = 0 up to rounding
			v := 2*srng.Float64() - 1
			x[perm[i]], x[perm[i+1]] = v, -v
		}
		in.Starts = []Start{{"center", make([]float64, n)}, {"random", x}}
		if n <= vertexMaxCut {
			in.Ref, _ = BalancedVertexMin(in)
			in.RefKind = "exact: balanced ±1 vertices"
		}
		out = append(out, in)
	}
	return out
}

func genPortfolio(seed uint64) []*Instance {
	var out []*Instance
	for k, n := range portfolioSizes {
		rng, srng := rngs(seed, 4, k)
		in := Portfolio(n, rng)
		in.Name = fmt.Sprintf("%s-%d", in.Name, k)
		x := make([]float64, n)
		var sum float64
		for i := range x {
			x[i] = in.Upper[i] * srng.Float64()
			sum += x[i]
		}
		if sum > 1 { // shrink onto Σx = t < 1, staying below every uᵢ
			t := srng.Float64()
			for i := range x {
				x[i] *= t / sum
			}
		}
		in.Starts = []Start{{"center", make([]float64, n)}, {"random", x}}
		if n <= kktMaxPortfolio {
			in.Ref, _ = KKTMin(in)
			in.RefKind = "exact: KKT enumeration"
		}
		out = append(out, in)
	}
	return out
}

func genBoxQP(seed uint64) []*Instance {
	var out []*Instance
	for k, sh := range boxqpShapes {
		rng, srng := rngs(seed, 5, k)
		in := BoxQP(sh[0], sh[1], rng)
		centre, x := make([]float64, in.N), make([]float64, in.N)
		for i := range x {
			centre[i], x[i] = 0.5, srng.Float64()
		}
		in.Starts = []Start{{"center", centre}, {"random", x}}
		out = append(out, in)
	}
	return out
}

// simplexStarts sets the barycentre and a uniform random point of the simplex
// (normalized exponentials, i.e. Dirichlet(1, …, 1)).
func simplexStarts(in *Instance, rng *rand.Rand) {
	bary, x := make([]float64, in.N), make([]float64, in.N)
	var sum float64
	for i := range x {
		bary[i] = 1 / float64(in.N)
		x[i] = -math.Log(1 - rng.Float64())
		sum += x[i]
	}
	for i := range x {
		x[i] /= sum
	}
	in.Starts = []Start{{"center", bary}, {"random", x}}
}
