package houdini

import (
	"errors"
	"fmt"
)

// errors.Is-able sentinels. Typed errors below wrap them and say where.
var (
	// ErrBadProblem: the Problem lacks Grad (or Sampled lacks Grad, or has N < 0).
	ErrBadProblem = errors.New("houdini: Problem.Grad is nil")
	// ErrBadSettings: a setting is out of range (see *SettingsError).
	ErrBadSettings = errors.New("houdini: invalid settings")
	// ErrDimension: lengths of A, b, bounds, x or an oracle's output disagree (*DimensionError).
	ErrDimension = errors.New("houdini: dimension mismatch")
	// ErrNonFinite: NaN or ±Inf in input data or from an oracle (*NonFiniteError).
	ErrNonFinite = errors.New("houdini: non-finite value")
	// ErrZeroRow: a row of A is zero (*RowError).
	ErrZeroRow = errors.New("houdini: zero constraint row")
	// ErrEmpty: the feasible set S is empty (*EmptyError names the conflicting constraints).
	ErrEmpty = errors.New("houdini: feasible set is empty")
	// ErrInfeasible: the start point is outside S (*InfeasibleError).
	ErrInfeasible = errors.New("houdini: point is infeasible")
	// ErrOraclePanic: Func, Grad or Hess panicked (*PanicError).
	ErrOraclePanic = errors.New("houdini: oracle panicked")
)

// SettingsError reports an invalid setting. It wraps ErrBadSettings.
type SettingsError struct {
	Field  string // the Settings field
	Reason string
}

// Error names the field and why it is invalid.
func (e *SettingsError) Error() string {
	return fmt.Sprintf("houdini: invalid settings: %s %s", e.Field, e.Reason)
}

// Unwrap returns ErrBadSettings.
func (e *SettingsError) Unwrap() error { return ErrBadSettings }

// DimensionError reports a length that disagrees with the problem's. It wraps ErrDimension.
type DimensionError struct {
	What      string // which input: "b", "x0", "upper", "row 3 of A", …
	Got, Want int
}

// Error names the input and both lengths.
func (e *DimensionError) Error() string {
	return fmt.Sprintf("houdini: dimension mismatch: %s has length %d, want %d", e.What, e.Got, e.Want)
}

// Unwrap returns ErrDimension.
func (e *DimensionError) Unwrap() error { return ErrDimension }

// NonFiniteError reports a NaN or ±Inf. It wraps ErrNonFinite.
type NonFiniteError struct {
	What  string    // "A", "b", "lower", "upper", "x0", "Func", "Grad", "Hess"
	Index int       // the offending entry (row-major for A and Hess), -1 for Func
	X     []float64 // for an oracle, the point it was called at; else nil
}

// Error names the input or oracle and the entry.
func (e *NonFiniteError) Error() string {
	if e.X != nil {
		return fmt.Sprintf("houdini: non-finite value: %s returned a NaN or Inf (entry %d) at a point of norm %g",
			e.What, e.Index, norm(e.X))
	}
	return fmt.Sprintf("houdini: non-finite value: %s[%d] is NaN or Inf", e.What, e.Index)
}

// Unwrap returns ErrNonFinite.
func (e *NonFiniteError) Unwrap() error { return ErrNonFinite }

// RowError reports a constraint row that cannot be used: a zero row. It wraps ErrZeroRow.
type RowError struct {
	Kind ConstraintKind // Inequality (a row of A; the zero Kind means this too) or Equality (of Aeq)
	Row  int
}

// Error names the zero row.
func (e *RowError) Error() string {
	k := e.Kind
	if k == 0 {
		k = Inequality
	}
	return fmt.Sprintf("houdini: zero constraint row: %v is zero", Constraint{k, e.Row})
}

// Unwrap returns ErrZeroRow.
func (e *RowError) Unwrap() error { return ErrZeroRow }

// InfeasibleError reports a point outside S: its worst constraint and by how much. It
// wraps ErrInfeasible.
type InfeasibleError struct {
	// Kind and Row name the constraint: row Row of A (Inequality) or of Aeq (Equality),
	// or the bound of coordinate Row (LowerBound, UpperBound).
	Kind ConstraintKind
	Row  int
	// Violation is âᵢ·x − b̂ᵢ (|âᵢ·x − b̂ᵢ| for an equality) for the row scaled to unit
	// norm: the distance from x to the row's half-space (hyperplane).
	Violation float64
}

// Error names the worst constraint and its violation.
func (e *InfeasibleError) Error() string {
	return fmt.Sprintf("houdini: point is infeasible: %v is violated by %g", Constraint{e.Kind, e.Row}, e.Violation)
}

// Unwrap returns ErrInfeasible.
func (e *InfeasibleError) Unwrap() error { return ErrInfeasible }

// PanicError reports an oracle that panicked: houdini recovers the panic, so that the
// caller keeps its goroutine and Minimize its partial Result, and returns this error. It
// wraps ErrOraclePanic and, when the panic's value is an error, that error too
// (errors.Is and errors.As see both).
type PanicError struct {
	What  string    // "Func", "Grad" or "Hess"
	X     []float64 // the point the oracle was called at (a copy)
	Value any       // the value passed to panic
	Stack []byte    // the panicking goroutine's stack, as runtime/debug.Stack prints it
}

// Error names the oracle and the panic's value.
func (e *PanicError) Error() string {
	return fmt.Sprintf("houdini: oracle panicked: %s panicked at a point of norm %g: %v", e.What, norm(e.X), e.Value)
}

// Unwrap returns ErrOraclePanic, and the panic's value when it is an error.
func (e *PanicError) Unwrap() []error {
	if err, ok := e.Value.(error); ok {
		return []error{ErrOraclePanic, err}
	}
	return []error{ErrOraclePanic}
}

// EmptyError reports an empty feasible set and the constraints that conflict: for
// inconsistent inequalities and bounds, those with a positive Farkas multiplier (a
// nonnegative combination of them reads 0 ≤ negative); for an equality, the equality and
// those it contradicts. It wraps ErrEmpty.
type EmptyError struct {
	Rows         []int  // rows of A
	Eq           []int  // rows of Aeq
	Lower, Upper []int  // coordinates whose lower or upper bound takes part
	Reason       string // how the conflict was found
}

// Error names the conflicting constraints and the reason.
func (e *EmptyError) Error() string {
	msg := "houdini: feasible set is empty"
	for _, part := range []struct {
		what string
		idx  []int
	}{{"rows of A", e.Rows}, {"rows of Aeq", e.Eq}, {"lower bounds of x", e.Lower}, {"upper bounds of x", e.Upper}} {
		if len(part.idx) > 0 {
			msg += fmt.Sprintf(": %s %v", part.what, part.idx)
		}
	}
	if e.Reason != "" {
		msg += " (" + e.Reason + ")"
	}
	return msg
}

// Unwrap returns ErrEmpty.
func (e *EmptyError) Unwrap() error { return ErrEmpty }
