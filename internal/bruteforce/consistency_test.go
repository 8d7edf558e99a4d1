package bruteforce

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
)

// Tolerances of the cross-check, as fractions of scaleOf.
const (
	// beatTol: Sample may not find a value below Min's by more than this (the largest
	// seen is 3e-15); the other invariants use it too. Sample runs
	// at sampleTol, so its points are feasible to 1e-15·R: a looser Sample could use the
	// tolerance band that Min's sandwich allows (see the package doc) and legitimately
	// beat Min in near-parallel slivers.
	beatTol   = 1e-12
	sampleTol = 1e-15
	// closeTol: Sample is "close" when within this of Min.
	closeTol = 1e-6
)

// outcome is what checkCase finds on one instance.
type outcome struct {
	fails  []string
	close  bool
	family Family
	model  Model
}

// checkCase cross-checks Min on catalogue instance i against its own invariants and
// against Sample with n samples:
//   - X is feasible, so Min is feasible with Value ≤ q(0) = 0 (up to rounding);
//   - Min's H is feasible, Value = q(H), and the rows Min held are active at H;
//   - holding the rows of H's affine set as equalities leaves the minimum unchanged;
//   - halving R does not lower the minimum;
//   - Sample (at sampleTol) never goes below Min by more than beatTol.
func checkCase(seed uint64, i, n int) outcome {
	in := Case(seed, i)
	o := outcome{family: Family(i % int(NumFamilies)), model: Model(i / int(NumFamilies) % int(NumModels))}
	fail := func(format string, args ...any) {
		o.fails = append(o.fails, in.Name+": "+fmt.Sprintf(format, args...))
	}
	p := in.Problem()
	sc := scaleOf(&p)
	if v := p.Violation(make([]float64, p.Dim())); v > 1e-12*p.R {
		fail("X violates the constraints by %g", v)
	}
	m := Min(p)
	if !m.Feasible || !(m.Value <= 1e-14*sc) { // h₀ of rounded equalities is not exactly 0
		fail("Min feasible=%v value %g; X is feasible with q = 0", m.Feasible, m.Value)
		return o
	}
	if !p.Feasible(m.H) || m.Value != p.Value(m.H) {
		fail("Min's H = %v: feasible %v, q(H) = %g, Value = %g", m.H, p.Feasible(m.H), p.Value(m.H), m.Value)
	}
	for _, i := range m.Held {
		if !slices.Contains(m.Active, i) {
			fail("row %d held but not active at H (active %v)", i, m.Active)
		}
	}
	if h := Min(p.Hold(m.Held...)); !h.Feasible || math.Abs(h.Value-m.Value) > beatTol*sc {
		fail("holding the rows %v of H's affine set changes the minimum from %.12g to %.12g", m.Held, m.Value, h.Value)
	}
	half := p
	half.R /= 2
	if h := Min(half); !h.Feasible || h.Value < m.Value-beatTol*sc {
		fail("at R/2 the minimum %.12g is below %.12g at R", h.Value, m.Value)
	}
	ps := p
	ps.Tol = sampleTol
	s := Sample(ps, rand.New(rand.NewPCG(seed^0x5eed, uint64(i))), n)
	if s.Feasible && s.Value < m.Value-beatTol*sc {
		fail("Sample found q = %.12g below Min's %.12g (by %.3g of the scale) at h = %v; Min held %v",
			s.Value, m.Value, (m.Value-s.Value)/sc, s.H, m.Held)
	}
	o.close = s.Feasible && s.Value <= m.Value+closeTol*sc
	return o
}

// checkCatalogue runs checkCase on instances 0 … count−1, in parallel, and returns the
// outcomes in order.
func checkCatalogue(seed uint64, count, n int) []outcome {
	out := make([]outcome, count)
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = checkCase(seed, i, n)
			}
		}()
	}
	for i := range count {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// TestMinAgainstSample is the main cross-check: 2000 catalogue instances (every family
// with every model, d ≤ 6; 540 under -short). Besides the invariants of checkCase,
// Sample must come within closeTol of Min on at least 85% of the instances overall and
// 60% in every family and model, or the comparison would prove little.
func TestMinAgainstSample(t *testing.T) {
	count := 2000
	if testing.Short() {
		count = 540
	}
	outs := checkCatalogue(1, count, 100)
	var close, tf [NumFamilies][2]int
	var tm [NumModels][2]int
	nfail := 0
	for _, o := range outs {
		for _, f := range o.fails {
			if nfail++; nfail <= 20 {
				t.Error(f)
			}
		}
		c := 0
		if o.close {
			c = 1
		}
		tf[o.family][0] += c
		tf[o.family][1]++
		tm[o.model][0] += c
		tm[o.model][1]++
		close[0][0] += c
	}
	if nfail > 20 {
		t.Errorf("… %d failures in all", nfail)
	}
	frac := func(c [2]int) float64 { return float64(c[0]) / float64(max(1, c[1])) }
	if f := float64(close[0][0]) / float64(count); f < 0.85 {
		t.Errorf("Sample within %g of Min on %.1f%% of the instances, want ≥ 85%%", closeTol, 100*f)
	}
	for fam, c := range tf {
		t.Logf("%-14v Sample close on %d of %d", Family(fam), c[0], c[1])
		if frac(c) < 0.6 {
			t.Errorf("%v: Sample close on %d of %d, want ≥ 60%%", Family(fam), c[0], c[1])
		}
	}
	for mod, c := range tm {
		t.Logf("%-14v Sample close on %d of %d", Model(mod), c[0], c[1])
		if frac(c) < 0.6 {
			t.Errorf("%v: Sample close on %d of %d, want ≥ 60%%", Model(mod), c[0], c[1])
		}
	}
}
