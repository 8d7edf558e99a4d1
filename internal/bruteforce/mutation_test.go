package bruteforce

import (
	"math/rand/v2"
	"testing"
)

// TestMutantsAreCaught shows that the tests can fail: it switches off, one at a time,
// each part of Min that its completeness argument needs, and requires the package's
// own checks (known answers, the catalogue cross-check, the affine refinement test) to
// report at least one failure against the mutant.
func TestMutantsAreCaught(t *testing.T) {
	count, n := 324, 60
	if testing.Short() {
		count, n = 162, 40
	}
	mutants := []struct {
		name string
		flag *bool
	}{
		{"no hard-case points", &mutation.noHardCase},
		{"no secular roots", &mutation.noSecular},
		{"no roots between poles", &mutation.noInner},
		{"no interior stationary point", &mutation.noInterior},
		{"no refinement of affine sets", &mutation.noRefine},
	}
	for _, m := range mutants {
		if *m.flag {
			t.Fatalf("mutation %q is on outside this test", m.name)
		}
		*m.flag = true
		known := len(checkKnown(oneDim(rand.New(rand.NewPCG(1, 2)), 200))) +
			len(checkKnown(paperCases())) +
			len(checkKnown(lagrangian(rand.New(rand.NewPCG(3, 4)), 300)))
		cat := 0
		for _, o := range checkCatalogue(1, count, n) {
			cat += len(o.fails)
		}
		aff := len(checkAffine(100))
		*m.flag = false
		t.Logf("mutant %-30q caught by %3d known answers, %3d catalogue checks, %3d affine checks", m.name, known, cat, aff)
		if known+cat+aff == 0 {
			t.Errorf("mutant %q survives every check", m.name)
		}
	}
}
