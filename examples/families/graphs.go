package main

import (
	"math/bits"
	"math/rand/v2"
	"slices"
)

// Graph is an undirected simple graph on vertices 0..n−1, stored as an adjacency matrix
// (n ≤ a few hundred here).
type Graph [][]bool

// NewGraph returns the edgeless graph on n vertices.
func NewGraph(n int) Graph {
	g := make(Graph, n)
	for i := range g {
		g[i] = make([]bool, n)
	}
	return g
}

func (g Graph) add(i, j int) { g[i][j], g[j][i] = true, true }

// Edges returns the number of edges.
func (g Graph) Edges() int {
	m := 0
	for i := range g {
		for j := i + 1; j < len(g); j++ {
			if g[i][j] {
				m++
			}
		}
	}
	return m
}

// Gnp returns an Erdős–Rényi graph G(n, p): each of the n(n−1)/2 pairs, in the order
// (0,1), (0,2), …, (1,2), …, is an edge when rng.Float64() < p.
func Gnp(n int, p float64, rng *rand.Rand) Graph {
	g := NewGraph(n)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if rng.Float64() < p {
				g.add(i, j)
			}
		}
	}
	return g
}

// Hamming returns the Hamming graph H(d, q): the qᵈ words of length d over q letters
// (vertex v is the word of v's base-q digits), adjacent when they differ in exactly one
// letter. It is vertex-transitive and (d(q−1))-regular, with clique number q (q ≥ 2).
func Hamming(d, q int) Graph {
	n := 1
	for range d {
		n *= q
	}
	g := NewGraph(n)
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			diff := 0
			for a, b := u, v; a > 0 || b > 0; a, b = a/q, b/q {
				if a%q != b%q {
					diff++
				}
			}
			if diff == 1 {
				g.add(u, v)
			}
		}
	}
	return g
}

// Johnson returns the Johnson graph J(n, k): the k-subsets of {0..n−1}, in increasing
// order of their bitmasks, adjacent when they share k−1 elements. It is vertex-transitive
// and k(n−k)-regular, with clique number max(k+1, n−k+1) for 1 ≤ k < n (the sets through
// a common (k−1)-set, or inside a common (k+1)-set).
func Johnson(n, k int) Graph {
	var sets []uint64
	for m := uint64(0); m < 1<<n; m++ {
		if bits.OnesCount64(m) == k {
			sets = append(sets, m)
		}
	}
	g := NewGraph(len(sets))
	for i := range sets {
		for j := i + 1; j < len(sets); j++ {
			if bits.OnesCount64(sets[i]&sets[j]) == k-1 {
				g.add(i, j)
			}
		}
	}
	return g
}

// MaxClique returns a maximum clique of g, in increasing vertex order: exact branch and
// bound in the style of Carraghan–Pardalos with Tomita and Seki's (MCQ, 2003) greedy
// colouring bound — a set of candidates coloured with c colours holds no clique of more
// than c vertices, so a branch whose clique plus colour bound cannot beat the incumbent is
// cut. Exponential in the worst case; milliseconds to a second for G(200, ½).
func MaxClique(g Graph) []int {
	n := len(g)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	deg := make([]int, n)
	for i := range g {
		for j := range g {
			if g[i][j] {
				deg[i]++
			}
		}
	}
	// High degree first: colouring in this order gives tighter bounds near the root.
	slices.SortStableFunc(order, func(a, b int) int { return deg[b] - deg[a] })
	s := &cliqueSearch{g: g}
	s.expand(nil, order)
	slices.Sort(s.best)
	return s.best
}

type cliqueSearch struct {
	g    Graph
	best []int
}

// expand extends the clique c by the candidates p (every one adjacent to all of c).
func (s *cliqueSearch) expand(c, p []int) {
	verts, colour := s.colourSort(p)
	for i := len(verts) - 1; i >= 0; i-- {
		if len(c)+colour[i] <= len(s.best) {
			return // the colours bound every clique among verts[:i+1]
		}
		v := verts[i]
		cv := append(slices.Clone(c), v)
		var pv []int
		for _, u := range verts[:i] {
			if s.g[v][u] {
				pv = append(pv, u)
			}
		}
		if len(pv) == 0 {
			if len(cv) > len(s.best) {
				s.best = cv
			}
			continue
		}
		s.expand(cv, pv)
	}
}

// colourSort colours p greedily (each vertex, in p's order, takes the first colour class
// holding none of its neighbours) and returns the vertices by colour with their colour
// numbers from 1: colour[i] bounds the clique number of verts[:i+1].
func (s *cliqueSearch) colourSort(p []int) (verts, colour []int) {
	var classes [][]int
	for _, v := range p {
		k := 0
		for ; k < len(classes); k++ {
			if !slices.ContainsFunc(classes[k], func(u int) bool { return s.g[v][u] }) {
				break
			}
		}
		if k == len(classes) {
			classes = append(classes, nil)
		}
		classes[k] = append(classes[k], v)
	}
	for k, cl := range classes {
		for _, v := range cl {
			verts = append(verts, v)
			colour = append(colour, k+1)
		}
	}
	return verts, colour
}
