package main

import (
	"fmt"
	"math"
)

// Graph is an undirected weighted simple graph on vertices 0..N−1: the edge list in
// generation order, and adjacency lists in compressed rows (the neighbours of v are
// Nbr[Off[v]:Off[v+1]] with weights W[…]). Memory is O(n + m).
type Graph struct {
	Name    string
	N       int
	I, J    []int32   // edge k joins I[k] and J[k]
	EW      []float64 // edge k's weight
	Off     []int
	Nbr     []int32
	W       []float64
	Torus   [2]int // rows, cols of a toroidal grid; zero otherwise
	TotalW  float64
	Checked uint64 // Checksum at generation, compared with the Python script's
}

// splitMix64 is Steele, Lea & Flood's SplitMix64 (2014): chosen because it is a few lines
// in any language, so peers/run_scipy.py generates bit-identical graphs.
type splitMix64 struct{ s uint64 }

func (r *splitMix64) next() uint64 {
	r.s += 0x9E3779B97F4A7C15
	z := r.s
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// ER returns an Erdős–Rényi graph G(n, m) with m = 3n edges (average degree 6), unit
// weights: pairs (a, b) = (next mod n, next mod n) of SplitMix64 seeded by seed, self-loops
// and repeated pairs skipped. The modulo bias (n/2⁶⁴) is negligible.
func ER(n int, seed uint64) (*Graph, error) {
	if n < 8 {
		return nil, fmt.Errorf("ER: n = %d, want ≥ 8", n)
	}
	m := 3 * n
	g := &Graph{Name: fmt.Sprintf("er%d", n), N: n}
	rng := splitMix64{seed}
	seen := make(map[int64]struct{}, m)
	for len(g.I) < m {
		a, b := int(rng.next()%uint64(n)), int(rng.next()%uint64(n))
		if a == b {
			continue
		}
		key := int64(min(a, b))*int64(n) + int64(max(a, b))
		if _, dup := seen[key]; dup {
			continue
		}
		seen[key] = struct{}{}
		g.add(a, b, 1)
	}
	g.build()
	return g, nil
}

// Torus returns the 2-D toroidal grid rows × cols with rows·cols = n, rows the largest
// divisor of n not above √n (both ≥ 3), each vertex r·cols + c joined to its right and
// lower neighbours (wrapping around), with weights ±1 from the top bit of SplitMix64:
// the G-set's toroidal ±1 instances (G62, G65, …) are of this kind (Helmberg & Rendl 2000,
// "A spectral bundle method for semidefinite programming", SIAM J. Optim. 10(3), graphs made
// with Rinaldi's generator rudy).
func Torus(n int, seed uint64) (*Graph, error) {
	rows := int(math.Sqrt(float64(n)))
	for rows > 1 && n%rows != 0 {
		rows--
	}
	cols := n / rows
	if rows < 3 || cols < 3 {
		return nil, fmt.Errorf("torus: n = %d has no factorization rows × cols with both ≥ 3", n)
	}
	g := &Graph{Name: fmt.Sprintf("torus%dx%d", rows, cols), N: n, Torus: [2]int{rows, cols}}
	rng := splitMix64{seed}
	w := func() float64 {
		if rng.next()>>63 == 0 {
			return 1
		}
		return -1
	}
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			v := r*cols + c
			g.add(v, r*cols+(c+1)%cols, w())
			g.add(v, ((r+1)%rows)*cols+c, w())
		}
	}
	g.build()
	return g, nil
}

func (g *Graph) add(a, b int, w float64) {
	g.I = append(g.I, int32(a))
	g.J = append(g.J, int32(b))
	g.EW = append(g.EW, w)
	g.TotalW += w
}

// build fills the adjacency lists from the edge list.
func (g *Graph) build() {
	g.Off = make([]int, g.N+1)
	for k := range g.I {
		g.Off[g.I[k]+1]++
		g.Off[g.J[k]+1]++
	}
	for v := 0; v < g.N; v++ {
		g.Off[v+1] += g.Off[v]
	}
	g.Nbr = make([]int32, g.Off[g.N])
	g.W = make([]float64, g.Off[g.N])
	pos := append([]int(nil), g.Off[:g.N]...)
	for k := range g.I {
		a, b := g.I[k], g.J[k]
		g.Nbr[pos[a]], g.W[pos[a]] = b, g.EW[k]
		pos[a]++
		g.Nbr[pos[b]], g.W[pos[b]] = a, g.EW[k]
		pos[b]++
	}
	g.Checked = g.Checksum()
}

// M returns the number of edges.
func (g *Graph) M() int { return len(g.I) }

// checksumMod is the Mersenne prime 2⁶¹ − 1.
const checksumMod = 1<<61 - 1

// Checksum returns Σₖ (k + 1)·(iₖ·n + jₖ)·wₖ mod 2⁶¹ − 1 over the edges in order, the
// fingerprint run_scipy.py stores beside its results.
func (g *Graph) Checksum() uint64 {
	var s uint64
	n := uint64(g.N)
	for k := range g.I {
		// (k + 1)·(i·n + j) < m·n² < 2⁶⁴ for the sizes here (m = 3n, n ≤ 10⁵): exact.
		t := uint64(k+1) * (uint64(g.I[k])*n + uint64(g.J[k])) % checksumMod
		if g.EW[k] < 0 {
			t = (checksumMod - t) % checksumMod
		}
		s = (s + t) % checksumMod
	}
	return s
}

// F returns f(x) = ½ Σ_{ij ∈ E} wᵢⱼ xᵢxⱼ (= ¼ xᵀWx for the weighted adjacency matrix W).
// On {−1, 1}ⁿ, f = ½(Σw − 2·cut weight).
func (g *Graph) F(x []float64) float64 {
	var s float64
	for k := range g.I {
		s += g.EW[k] * x[g.I[k]] * x[g.J[k]]
	}
	return s / 2
}

// Grad writes ∇f(x) = ½Wx into grad from the adjacency lists: O(n + m).
func (g *Graph) Grad(grad, x []float64) {
	for v := 0; v < g.N; v++ {
		var s float64
		for p := g.Off[v]; p < g.Off[v+1]; p++ {
			s += g.W[p] * x[g.Nbr[p]]
		}
		grad[v] = s / 2
	}
}

// Cut returns the weight and the number of the edges whose ends have strictly opposite
// signs in x: the cut of the partition sign(x). A zero coordinate is on neither side.
func (g *Graph) Cut(x []float64) (weight float64, edges int) {
	for k := range g.I {
		if x[g.I[k]]*x[g.J[k]] < 0 {
			weight += g.EW[k]
			edges++
		}
	}
	return weight, edges
}
