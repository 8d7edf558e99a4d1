package houdini

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// fileLayers is the package's structure (see the README's "Architecture"): each file's
// layer, bottom up. A file may use the names of its own layer and of lower ones.
var fileLayers = map[string]int{
	// 0 base: vector helpers, errors, the API's types, settings.
	"doc.go": 0, "vec.go": 0, "errors.go": 0, "types.go": 0, "progress.go": 0, "settings.go": 0,
	// 1 polyhedron: rows, emptiness, the geometry of faces.
	"rows.go": 1, "constraints.go": 1, "faces.go": 1, "preprocess.go": 1, "feasibility.go": 1, "polyhedron.go": 1,
	// 2 oracle: the VRSG estimator, the evaluator.
	"vrsg.go": 2, "samples.go": 2, "oracle.go": 2, "sampledoracle.go": 2,
	// 3 model: the quadratic model.
	"quadapprox.go": 3,
	"fdhessian.go":  3, "lbfgs.go": 3, "stochmodel.go": 3,
	// 4 subproblem: eigensolver, subspaces, FindInside and its backends, the secular equation.
	"eigen.go": 4, "eigen_gonum.go": 4, "eigen_lapacke.go": 4, "subspace.go": 4, "findinside.go": 4,
	"polyroots.go": 4, "dense.go": 4, "eigenbasis.go": 4, "lbfgsb.go": 4, "lanczos.go": 4, "krylov.go": 4, "twopass.go": 4, "spectrum.go": 4, "conekrylov.go": 4,
	// 5 walk: the subset walk and its examiners.
	"walk.go": 5, "forced.go": 5, "circuits.go": 5, "examiners.go": 5, "lagrange.go": 5, "cone.go": 5, "coupling.go": 5, "blockbound.go": 5, "cap.go": 5, "eqrelax.go": 5, "corner.go": 5, "krylovexaminer.go": 5,
	// 6 drivers: one call's state, the escapes, descent, purification, the loop, the API.
	"run.go": 6, "modelwalk.go": 6, "escape.go": 6, "stochescape.go": 6, "unbounded.go": 6, "descentstate.go": 6,
	"curvature.go": 6, "descent.go": 6, "stochdescent.go": 6, "purify.go": 6, "search.go": 6, "minimize.go": 6,
	"houdini.go": 6, "boxcert.go": 6, "facecert.go": 6,
}

var layerNames = []string{"base", "polyhedron", "oracle", "model", "subproblem", "walk", "drivers"}

// fileRefs type-checks the package's non-test files of the default build and returns, for
// each file, the set of other files whose declarations it uses (top-level names,
// methods and fields alike), and the files that use a field of Constraints. Imports are
// stubbed: only the package's own objects matter, and the checker records their uses
// through the errors the stubs cause.
func fileRefs(t *testing.T) (refs map[string]map[string]bool, fieldUsers map[string]bool) {
	t.Helper()
	bp, err := build.Default.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: stubImporter{}, Error: func(error) {}, FakeImportC: true}
	pkg, _ := conf.Check("houdini", fset, files, info)
	declFile := func(obj types.Object) string {
		if obj == nil || obj.Pkg() != pkg || !obj.Pos().IsValid() {
			return ""
		}
		return filepath.Base(fset.Position(obj.Pos()).Filename)
	}
	constraints, _ := pkg.Scope().Lookup("Constraints").(*types.TypeName)
	refs = map[string]map[string]bool{}
	fieldUsers = map[string]bool{}
	record := func(at token.Pos, obj types.Object) {
		from, to := filepath.Base(fset.Position(at).Filename), declFile(obj)
		if to == "" || to == from {
			return
		}
		if refs[from] == nil {
			refs[from] = map[string]bool{}
		}
		refs[from][to] = true
	}
	for id, obj := range info.Uses {
		if v, ok := obj.(*types.Var); ok && v.IsField() {
			continue // fields: through Selections, with the receiver's type
		}
		record(id.Pos(), obj)
	}
	for sel, s := range info.Selections {
		record(sel.Sel.Pos(), s.Obj())
		if v, ok := s.Obj().(*types.Var); ok && v.IsField() && constraints != nil && isConstraints(s.Recv(), constraints) {
			fieldUsers[filepath.Base(fset.Position(sel.Pos()).Filename)] = true
		}
	}
	return refs, fieldUsers
}

func isConstraints(t types.Type, c *types.TypeName) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj() == c
}

// stubImporter returns an empty, complete package for every import.
type stubImporter struct{}

func (stubImporter) Import(path string) (*types.Package, error) {
	name := path[strings.LastIndex(path, "/")+1:]
	if v := strings.TrimPrefix(name, "v"); v != name && strings.Trim(v, "0123456789") == "" {
		name = filepath.Base(filepath.Dir(path)) // math/rand/v2 is rand
	}
	p := types.NewPackage(path, name)
	p.MarkComplete()
	return p, nil
}

// TestLayers keeps the package's files in layers whose dependencies point down: a file
// uses no name (type, function, method, field, constant, variable) declared in a file of a
// higher layer, no two files depend on each other (nor through a longer circle), and
// above the polyhedron layer no file touches Constraints' fields (rows are reached
// through its methods, so that their storage can change).
func TestLayers(t *testing.T) {
	all, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range all {
		if _, ok := fileLayers[f]; !ok && !strings.HasSuffix(f, "_test.go") {
			t.Errorf("%s has no layer: add it to fileLayers (and to the README's Architecture)", f)
		}
	}
	refs, fieldUsers := fileRefs(t)
	for from, tos := range refs {
		for to := range tos {
			if fileLayers[to] > fileLayers[from] {
				t.Errorf("%s (%s) uses a name of %s (%s, a higher layer)", from, layerNames[fileLayers[from]], to, layerNames[fileLayers[to]])
			}
		}
	}
	if c := fileCycle(refs); c != nil {
		t.Errorf("files refer to each other in a circle: %s", strings.Join(c, " → "))
	}
	for f := range fieldUsers {
		if fileLayers[f] > 1 {
			t.Errorf("%s (%s) touches Constraints' fields; use its methods", f, layerNames[fileLayers[f]])
		}
	}
	var lines []string
	for from, tos := range refs {
		lines = append(lines, fmt.Sprintf("%s → %s", from, strings.Join(slices.Sorted(maps.Keys(tos)), ", ")))
	}
	sort.Strings(lines)
	t.Logf("dependencies:\n%s", strings.Join(lines, "\n"))
}

// fileCycle returns a circle of files in the dependency graph, or nil.
func fileCycle(refs map[string]map[string]bool) []string {
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var stack []string
	var visit func(f string) []string
	visit = func(f string) []string {
		state[f] = open
		stack = append(stack, f)
		for _, g := range slices.Sorted(maps.Keys(refs[f])) {
			switch state[g] {
			case open:
				i := slices.Index(stack, g)
				return append(slices.Clone(stack[i:]), g)
			case unseen:
				if c := visit(g); c != nil {
					return c
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[f] = done
		return nil
	}
	for _, f := range slices.Sorted(maps.Keys(refs)) {
		if state[f] == unseen {
			if c := visit(f); c != nil {
				return c
			}
		}
	}
	return nil
}
