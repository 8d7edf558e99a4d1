package main

// What established solvers reach on the basic set, copied from testdata/peers/README.md
// ("BoxQP, basic set") and, per instance, IPOPT's gap from the centre start from
// testdata/peers/boxqp_basic.csv (column gap_pct, solver ipopt, start center). SciPy 1.10.1,
// NLopt 2.7.1, IPOPT 3.11.9 (MUMPS); exact gradients; single runs on a 2-core machine,
// times ±30 %.

// PeerRow is one row of the README's table.
type PeerRow struct {
	Solver, Start      string
	MeanGap, MedianGap float64
	MaxGap             float64
	Solved             int
	TotalSeconds       float64
}

var peerRows = []PeerRow{
	{"ipopt", "center", 0.488, 0.000, 9.08, 40, 2.91},
	{"trust-constr", "center", 0.786, 0.001, 6.32, 35, 2.52},
	{"nlopt-mma", "center", 0.808, 0.000, 8.22, 35, 0.02},
	{"nlopt-slsqp", "center", 1.111, 0.000, 9.75, 32, 0.17},
	{"lbfgsb", "center", 1.482, 0.000, 14.52, 32, 0.08},
	{"slsqp", "center", 1.617, 0.000, 27.34, 31, 0.19},
	{"trust-constr", "rand1", 0.935, 0.001, 10.26, 34, 2.68},
	{"ipopt", "rand1", 3.101, 1.335, 20.44, 19, 3.08},
}

// ipoptCenterGap is IPOPT's gap % per instance from the centre start.
var ipoptCenterGap = map[string]float64{
	"spar020-100-1": 0,
	"spar020-100-2": 0.6353,
	"spar020-100-3": 0,
	"spar030-060-1": 0,
	"spar030-060-2": 2.234e-07,
	"spar030-060-3": 1.71,
	"spar030-070-1": 9.076,
	"spar030-070-2": 0,
	"spar030-070-3": -3.549e-08,
	"spar030-080-1": 1.956,
	"spar030-080-2": 0,
	"spar030-080-3": -7.084e-08,
	"spar030-090-1": 0,
	"spar030-090-2": -3.03e-07,
	"spar030-090-3": 0,
	"spar030-100-1": 0,
	"spar030-100-2": 3.491,
	"spar030-100-3": 1.505e-14,
	"spar040-030-1": 0,
	"spar040-030-2": 0,
	"spar040-030-3": 0,
	"spar040-040-1": 0,
	"spar040-040-2": 0,
	"spar040-040-3": 0,
	"spar040-050-1": 0,
	"spar040-050-2": 0,
	"spar040-050-3": -8.639e-08,
	"spar040-060-1": 0.8773,
	"spar040-060-2": -7.128e-08,
	"spar040-060-3": 0,
	"spar040-070-1": 0,
	"spar040-070-2": 0,
	"spar040-070-3": 0.04104,
	"spar040-080-1": 0,
	"spar040-080-2": 4.515,
	"spar040-080-3": 0.04048,
	"spar040-090-1": 0,
	"spar040-090-2": 0,
	"spar040-090-3": 0,
	"spar040-100-1": 8.974e-08,
	"spar040-100-2": 0,
	"spar040-100-3": 1.019,
	"spar050-030-1": 0,
	"spar050-030-2": 1.139,
	"spar050-030-3": 0,
	"spar050-040-1": 0,
	"spar050-040-2": -2.728e-07,
	"spar050-040-3": 0.2865,
	"spar050-050-1": 1.511,
	"spar050-050-2": 0,
	"spar050-050-3": 1.858e-07,
	"spar060-020-1": 0,
	"spar060-020-2": 0,
	"spar060-020-3": 0.06743,
}
