package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/houdini-opt/houdini/examples/internal/cputime"
)

// Every solver run is a child process of this program (the same binary, told by the
// environment variable jobEnv which job to run): the parent can then kill a run that
// ignores its deadline (NewBox and one eigendecomposition cannot be interrupted), and
// each run's peak memory is the child's own high-water resident set size (VmHWM of
// /proc/<pid>/status, sampled by the parent and reported by the child at its end).
// getrusage's ru_maxrss is not used: Linux folds the pre-exec memory of the forked
// parent into it, so small children would report the parent's size.

const jobEnv = "LARGECUT_JOB"

// Job is one run.
type Job struct {
	Kind   string // "houdini", "houdini-bmz", "oneflip", "bmz" (on a graph) or "qp" (EigenSym, then houdini)
	Family string // "er" or "torus"
	N      int
	Seed   uint64 // graph or QP seed
	Runs   int    // restarts of a peer
	Cfg    Config
}

// JobResult is what a child reports, as JSON lines on stdout; later lines update
// earlier ones, so a killed child leaves what it had reported.
type JobResult struct {
	Cut       float64 `json:"cut"`
	CutEdges  int     `json:"cut_edges"`
	F         float64 `json:"f"`
	GradCalls int     `json:"grad_calls"`
	HessCalls int     `json:"hess_calls"`
	Flips     int     `json:"flips"`
	Escapes   int     `json:"escapes"`
	Status    string  `json:"status"`
	Seconds   float64 `json:"seconds"` // the solver's wall time (graph generation excluded)
	CPU       float64 `json:"cpu_s"`   // the solver's CPU time, user + system, all threads
	NewBox    float64 `json:"newbox_s"`
	EigSym    float64 `json:"eigsym_s"`
	EigSymCPU float64 `json:"eigsym_cpu_s"`
	VmHWM     int64   `json:"vmhwm"` // bytes, at the report
	Done      bool    `json:"done"`
}

// Outcome is a finished (or killed) child.
type Outcome struct {
	JobResult
	PeakRSS int64   // bytes: VmHWM
	ProcCPU float64 // the whole child's CPU seconds (all a killed child reports)
	Killed  bool    // the parent killed it at the deadline
	Wall    time.Duration
	Last    string // the child's last log line
}

// graphFor generates the job's graph.
func graphFor(family string, n int, seed uint64) (*Graph, error) {
	switch family {
	case "er":
		return ER(n, seed)
	case "torus":
		return Torus(n, seed)
	}
	return nil, fmt.Errorf("unknown graph family %q", family)
}

// runChild runs the job in this process, writing JobResult lines to out and its log
// to log.
func runChild(job Job, out, log io.Writer) error {
	enc := json.NewEncoder(out)
	if job.Kind == "qp" {
		q := NewQP(job.N, job.Seed)
		var eig mat.EigenSym
		t, cpu := time.Now(), cputime.Now()
		if !eig.Factorize(q.Q, true) {
			return errors.New("EigenSym failed")
		}
		r := JobResult{EigSym: time.Since(t).Seconds(), EigSymCPU: (cputime.Now() - cpu).Seconds(), VmHWM: vmHWM("/proc/self/status")}
		if err := enc.Encode(r); err != nil {
			return err
		}
		job.Cfg.Log = log
		cpu = cputime.Now()
		h, err := runHoudini(context.Background(), QPProblem(q), make([]float64, job.N), job.Cfg)
		if err != nil {
			return err
		}
		eigWall, eigCPU := r.EigSym, r.EigSymCPU
		r = houdiniResult(h, nil)
		r.EigSym, r.EigSymCPU, r.CPU = eigWall, eigCPU, (cputime.Now() - cpu).Seconds()
		r.VmHWM = vmHWM("/proc/self/status")
		return enc.Encode(r)
	}
	g, err := graphFor(job.Family, job.N, job.Seed)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(job.Seed, 7))
	t, cpu := time.Now(), cputime.Now()
	var res JobResult
	switch job.Kind {
	case "houdini":
		job.Cfg.Log = log
		h, err := runHoudini(context.Background(), CutProblem(g, job.Cfg.Hess, job.Cfg.HessVec), make([]float64, g.N), job.Cfg)
		if err != nil {
			return err
		}
		res = houdiniResult(h, g)
	case "houdini-bmz":
		// The BMZ peer's own runs (same seed, so the same best vector), then houdini from
		// that vertex: Minimize never raises f, and f is multilinear, so the cut of sign(X)
		// can only fall where X leaves a vertex; the status says by how much time BMZ took.
		p := g.BMZ(job.Runs, rng)
		bmz := time.Since(t)
		job.Cfg.Log = log
		h, err := runHoudini(context.Background(), CutProblem(g, job.Cfg.Hess, job.Cfg.HessVec), p.X, job.Cfg)
		if err != nil {
			return err
		}
		res = houdiniResult(h, g)
		res.Seconds = time.Since(t).Seconds()
		res.Status += fmt.Sprintf("; BMZ start %.1f s, cut %.0f", bmz.Seconds(), p.Cut)
	case "oneflip":
		p := g.BestOneFlip(job.Runs, rng)
		res = JobResult{Flips: p.Flips, Status: "local optimum"}
		res.Cut, res.CutEdges = g.Cut(p.X)
		res.F = g.F(p.X)
	case "bmz":
		p := g.BMZ(job.Runs, rng)
		res = JobResult{GradCalls: p.GradCalls, Status: "best of sweeps"}
		res.Cut, res.CutEdges = g.Cut(p.X)
		res.F = g.F(p.X)
	default:
		return fmt.Errorf("unknown job kind %q", job.Kind)
	}
	if res.Seconds == 0 {
		res.Seconds = time.Since(t).Seconds()
	}
	res.CPU = (cputime.Now() - cpu).Seconds()
	res.VmHWM = vmHWM("/proc/self/status")
	res.Done = true
	return enc.Encode(res)
}

func houdiniResult(h *HoudiniRun, g *Graph) JobResult {
	r := JobResult{F: h.F, GradCalls: h.GradCalls, HessCalls: h.HessCalls, Escapes: h.Escapes,
		Status: h.Status, Seconds: h.Wall.Seconds(), NewBox: h.NewBox.Seconds(), Done: true}
	if g != nil {
		r.Cut, r.CutEdges = g.Cut(h.X)
	}
	return r
}

// spawn runs job in a child process and kills it after limit (0: none). With verbose
// the child's log goes to stderr as it comes.
func spawn(job Job, limit time.Duration, verbose bool) (*Outcome, error) {
	spec, err := json.Marshal(job)
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	if limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, self)
	cmd.Env = append(os.Environ(), jobEnv+"="+string(spec))
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	o := &Outcome{}
	peak := make(chan int64, 1)
	exited := make(chan struct{})
	go samplePeak(cmd.Process.Pid, exited, peak)
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		o.Last = sc.Text()
		if verbose {
			fmt.Fprintf(os.Stderr, "  [%s %s %d] %s\n", job.Kind, job.Family, job.N, o.Last)
		}
	}
	werr := cmd.Wait()
	close(exited)
	o.PeakRSS = <-peak
	o.Wall = time.Since(start)
	o.Killed = ctx.Err() != nil
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		o.ProcCPU = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
	}
	dec := json.NewDecoder(&stdout)
	for dec.More() {
		if err := dec.Decode(&o.JobResult); err != nil {
			break
		}
	}
	o.PeakRSS = max(o.PeakRSS, o.VmHWM)
	if werr != nil && !o.Killed {
		return o, fmt.Errorf("%s %s n=%d: %v: %s", job.Kind, job.Family, job.N, werr, strings.TrimSpace(o.Last))
	}
	return o, nil
}

// samplePeak sends on peak the largest VmHWM of process pid seen every 50 ms until
// exited is closed.
func samplePeak(pid int, exited <-chan struct{}, peak chan<- int64) {
	var m int64
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		m = max(m, vmHWM(fmt.Sprintf("/proc/%d/status", pid)))
		select {
		case <-exited:
			peak <- m
			return
		case <-tick.C:
		}
	}
}

// vmHWM returns the VmHWM line of a /proc status file in bytes, or 0.
func vmHWM(path string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		var kb int64
		if _, err := fmt.Sscanf(line, "VmHWM: %d kB", &kb); err == nil {
			return kb * 1024
		}
	}
	return 0
}

// profileEnv, when set, names the files of the children's CPU profiles (for diagnosis: each
// profile goes to that name + "." + its pid).
const profileEnv = "LARGECUT_CPUPROFILE"

// memProfileEnv, when set, names the files of the children's allocation profiles (pprof's
// "allocs": go tool pprof -sample_index=alloc_space), written when the job ends.
const memProfileEnv = "LARGECUT_MEMPROFILE"

// childMain runs the job named by jobEnv, if any, and reports whether it did.
func childMain() bool {
	spec := os.Getenv(jobEnv)
	if spec == "" {
		return false
	}
	if path := os.Getenv(profileEnv); path != "" { // a CPU profile of the child, for diagnosis
		if f, err := os.Create(fmt.Sprintf("%s.%d", path, os.Getpid())); err == nil {
			defer f.Close()
			if pprof.StartCPUProfile(f) == nil {
				defer pprof.StopCPUProfile()
			}
		}
	}
	var job Job
	err := json.Unmarshal([]byte(spec), &job)
	if err == nil {
		err = runChild(job, os.Stdout, os.Stderr)
	}
	if path := os.Getenv(memProfileEnv); path != "" { // where the child allocated, for diagnosis
		if f, err := os.Create(fmt.Sprintf("%s.%d", path, os.Getpid())); err == nil {
			pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "largecut child:", err)
		os.Exit(1)
	}
	return true
}
