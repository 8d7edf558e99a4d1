package main

// What established solvers reach on the same graphs and starts, copied from
// testdata/peers/README.md ("Max-cut relaxation, the paper's experiment") and, per graph,
// from testdata/peers/maxcut.csv (SciPy 1.10.1, NLopt 2.7.1, IPOPT 3.11.9; exact gradients;
// single runs on a 2-core machine, times ±30 %).

// PeerSummary is one row of the README's table: means over the five graphs.
type PeerSummary struct {
	Solver, Start string
	MeanF         float64
	MeanCut       float64
	FracPM1       float64
	MeanSeconds   float64 // NaN-free: 0 where the README prints "—"
}

var peerSummary = []PeerSummary{
	{"every peer (L-BFGS-B, SLSQP, trust-constr, MMA, IPOPT)", "zero", 0, 0, 0, 0},
	{"ipopt", "gauss7", -819.6, 1548.0, 0.977, 0.33},
	{"trust-constr", "gauss7", -776.4, 1526.4, 0.974, 0.21},
	{"lbfgsb", "gauss7", -759.6, 1518.0, 0.992, 0.006},
	{"nlopt-mma", "gauss7", -759.2, 1517.8, 0.994, 0.002},
	{"1-flip greedy, best of 10 random ±1 starts", "—", -765.6, 1521.0, 1.000, 0.004},
}

// PeerGraph is, per graph, IPOPT's result from the gauss7 start and the 1-flip greedy's
// (maxcut.csv columns f, cut_rounded, frac_pm1), and the spectral upper bound on the cut.
// From x₀ = 0 every peer stops at f = 0, cut 0.
type PeerGraph struct {
	IpoptF, IpoptCut   float64
	IpoptFrac          float64
	GreedyF, GreedyCut float64
	CutUpperBound      float64
}

var peerGraph = map[string]PeerGraph{
	"er300_seed1": {-832, 1545, 0.973, -750, 1504, 2265.9},
	"er300_seed2": {-801, 1503, 0.963, -789, 1497, 2122.8},
	"er300_seed3": {-812, 1581, 0.973, -762, 1556, 2263.5},
	"er300_seed4": {-821, 1517, 0.997, -759, 1486, 2135.8},
	"er300_seed5": {-832, 1594, 0.977, -768, 1562, 2251.1},
}
