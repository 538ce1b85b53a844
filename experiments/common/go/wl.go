// Package wl is the Go side of the lab's workload protocol, the same as
// experiments/common/wl.h for the C workloads: the harness execs
//
//	wl-<experiment>-go --variant go --n N [--stack S] [--threads T]
//	                   [--duration S] [--backend B] [--opt KEY=VALUE]...
//
// and reads one line `@lab-report {json}` from stdout.  Bad use prints
// "wl-EXP-go: option `--n`: ..." and exits 2.  Figures are measured in the
// run; the keys are those of the C variants, so the harness, the CSV and the
// report treat a Go point like any other.
package wl

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Args are the common flags.
type Args struct {
	Experiment, Variant, Backend string
	N, Stack                      int64
	Threads                       int
	Duration                      float64
	Opts                          map[string]string
}

var prog = "wl"

func usageError(format string, a ...interface{}) {
	fmt.Fprintf(os.Stderr, "%s: %s\n", prog, fmt.Sprintf(format, a...))
	os.Exit(2)
}

// count parses a whole count with an optional K/M/G suffix in powers of 1000.
func count(flag, s string, min int64) int64 {
	mult := int64(1)
	t := s
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'k', 'K':
			mult, t = 1000, t[:n-1]
		case 'm', 'M':
			mult, t = 1000000, t[:n-1]
		case 'g', 'G':
			mult, t = 1000000000, t[:n-1]
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v < min || v > (1<<62)/mult {
		usageError("option `%s`: `%s` is not a whole number >= %d", flag, s, min)
	}
	return v * mult
}

// Parse reads os.Args; variants are the names this binary runs.
func Parse(experiment string, variants []string) *Args {
	prog = "wl-" + experiment + "-go"
	a := &Args{Experiment: experiment, Backend: "go", Opts: map[string]string{}}
	args := os.Args[1:]
	haveN := false
	for i := 0; i < len(args); i++ {
		flag, val := args[i], ""
		if eq := strings.IndexByte(flag, '='); eq > 0 && strings.HasPrefix(flag, "--") {
			flag, val = flag[:eq], flag[eq+1:]
		} else if flag != "--help" {
			if i+1 >= len(args) {
				usageError("option `%s` needs a value", flag)
			}
			i++
			val = args[i]
		}
		switch flag {
		case "--variant":
			ok := false
			for _, v := range variants {
				ok = ok || v == val
			}
			if !ok {
				usageError("option `--variant`: unknown variant `%s`", val)
			}
			a.Variant = val
		case "--n":
			a.N, haveN = count("--n", val, 1), true
		case "--stack":
			a.Stack = 0 // goroutine stacks are the Go runtime's (2 KiB, growing)
		case "--threads":
			a.Threads = int(count("--threads", val, 0))
		case "--duration":
			d, err := strconv.ParseFloat(val, 64)
			if err != nil || d < 0 || d > 86400 {
				usageError("option `--duration`: `%s` is not a number of seconds in [0, 86400]", val)
			}
			a.Duration = d
		case "--backend":
			if val != "io_uring" && val != "epoll" {
				usageError("option `--backend`: unknown backend `%s` (io_uring or epoll)", val)
			}
		case "--opt":
			eq := strings.IndexByte(val, '=')
			if eq <= 0 {
				usageError("option `--opt`: expected KEY=VALUE, got `%s`", val)
			}
			a.Opts[val[:eq]] = val[eq+1:]
		case "--help":
			fmt.Printf("usage: %s --variant V --n N [--threads T] [--duration S] [--opt KEY=VALUE]...\n", prog)
			os.Exit(0)
		default:
			usageError("unknown option `%s`", flag)
		}
	}
	if a.Variant == "" || !haveN {
		usageError("`--variant` and `--n` are required")
	}
	if a.Threads > 0 {
		runtime.GOMAXPROCS(a.Threads)
	}
	return a
}

// Report collects key/values in order and prints them once.
type Report struct {
	keys []string
	vals map[string]interface{}
}

// NewReport starts a report with the fields every workload reports, plus the
// Go runtime's version and GOMAXPROCS (which follows the sandbox's cpuset).
func NewReport(a *Args) *Report {
	r := &Report{vals: map[string]interface{}{}}
	r.Str("status", "ok")
	r.Str("experiment", a.Experiment)
	r.Str("variant", a.Variant)
	r.Int("n", a.N)
	r.Str("go_version", runtime.Version())
	r.Int("gomaxprocs", int64(runtime.GOMAXPROCS(0)))
	return r
}

func (r *Report) set(k string, v interface{}) {
	if _, ok := r.vals[k]; !ok {
		r.keys = append(r.keys, k)
	}
	r.vals[k] = v
}

func (r *Report) Num(k string, v float64) { r.set(k, v) }
func (r *Report) Int(k string, v int64)   { r.set(k, v) }
func (r *Report) Str(k string, v string)  { r.set(k, v) }

// Latencies sorts ns and reports lat_samples, lat_p50_ns, lat_p99_ns,
// lat_p999_ns, lat_max_ns and lat_mean_ns with the C side's rank rule (the
// smallest sample with at least permille/1000 of the samples at or below it).
func (r *Report) Latencies(ns []uint64) {
	n := uint64(len(ns))
	r.Int("lat_samples", int64(n))
	if n == 0 {
		return
	}
	sort.Slice(ns, func(i, j int) bool { return ns[i] < ns[j] })
	rank := func(pm uint64) int64 {
		k := (n*pm + 999) / 1000
		if k == 0 {
			k = 1
		}
		return int64(ns[k-1])
	}
	var sum float64
	for _, v := range ns {
		sum += float64(v)
	}
	r.Int("lat_p50_ns", rank(500))
	r.Int("lat_p99_ns", rank(990))
	r.Int("lat_p999_ns", rank(999))
	r.Int("lat_max_ns", int64(ns[n-1]))
	r.Num("lat_mean_ns", sum/float64(n))
}

// LatenciesAs reports the same percentiles of another kind of latency:
// PREFIX_p50_ns ... PREFIX_samples (wl_report_latencies_as).
func (r *Report) LatenciesAs(prefix string, ns []uint64) {
	sub := &Report{vals: map[string]interface{}{}}
	sub.Latencies(ns)
	for _, k := range sub.keys {
		r.set(prefix+strings.TrimPrefix(k, "lat"), sub.vals[k])
	}
}

// The measured region (wl_region_begin/end): the window wall_s covers, with
// the process's own CPU and context switches over it, reported as
// region_wall_s, region_cpu_user_s, region_cpu_sys_s, region_vol_ctxsw,
// region_invol_ctxsw (summary.csv's cpu and context-switch columns).
var region struct {
	ru0, ru1 syscall.Rusage
	t0, t1   uint64
	ended    bool
}

func RegionBegin() {
	syscall.Getrusage(syscall.RUSAGE_SELF, &region.ru0)
	region.t0 = NowNs()
}

// RegionEnd returns the region's seconds.
func RegionEnd() float64 {
	region.t1 = NowNs()
	syscall.Getrusage(syscall.RUSAGE_SELF, &region.ru1)
	region.ended = true
	return float64(region.t1-region.t0) / 1e9
}

func (r *Report) measured() {
	if region.ended {
		tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
		r.Num("region_wall_s", float64(region.t1-region.t0)/1e9)
		r.Num("region_cpu_user_s", tv(region.ru1.Utime)-tv(region.ru0.Utime))
		r.Num("region_cpu_sys_s", tv(region.ru1.Stime)-tv(region.ru0.Stime))
		r.Int("region_vol_ctxsw", region.ru1.Nvcsw-region.ru0.Nvcsw)
		r.Int("region_invol_ctxsw", region.ru1.Nivcsw-region.ru0.Nivcsw)
	}
	// Since exec: the process's own high-water marks.
	if hwm := ProcStatusKB("VmHWM"); hwm >= 0 {
		r.Int("vm_hwm_bytes", hwm*1024)
	}
	if peak := ProcStatusKB("VmPeak"); peak >= 0 {
		r.Int("vm_peak_bytes", peak*1024)
	}
}

// Baseline reports rss_baseline_bytes (VmRSS now) and, where the workload
// can read its own cgroup, cgroup_baseline_bytes (wl_report_baseline): the
// harness subtracts them for the per-task figures.
func (r *Report) Baseline() {
	if rss := ProcStatusKB("VmRSS"); rss >= 0 {
		r.Int("rss_baseline_bytes", rss*1024)
	}
	if cg := ownCgroupMemory(); cg >= 0 {
		r.Int("cgroup_baseline_bytes", cg)
	}
}

// ownCgroupMemory: our cgroup's memory use, where it is visible and ours
// (its cgroup.procs lists us: true inside the sandbox's cgroup namespace).
func ownCgroupMemory() int64 {
	dirs := []string{"/sys/fs/cgroup/memory", "/sys/fs/cgroup"}
	files := []string{"memory.usage_in_bytes", "memory.current"}
	me := strconv.Itoa(os.Getpid())
	for i, d := range dirs {
		procs, err := os.ReadFile(d + "/cgroup.procs")
		if err != nil {
			continue
		}
		ours := false
		for _, l := range strings.Split(string(procs), "\n") {
			ours = ours || l == me
		}
		if !ours {
			continue
		}
		b, err := os.ReadFile(d + "/" + files[i])
		if err != nil {
			continue
		}
		if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
			return v
		}
	}
	return -1
}

func (r *Report) emit(status string, rc int) int {
	r.measured()
	r.vals["status"] = status
	w := bufio.NewWriter(os.Stdout)
	w.WriteString("@lab-report {")
	for i, k := range r.keys {
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(r.vals[k])
		if err != nil { // NaN or Inf: not JSON
			vb = []byte("null")
		}
		if i > 0 {
			w.WriteByte(',')
		}
		w.Write(kb)
		w.WriteByte(':')
		w.Write(vb)
	}
	w.WriteString("}\n")
	w.Flush()
	return rc
}

func (r *Report) OK() int { return r.emit("ok", 0) }

// Limit: a host limit stopped the workload (exit 0: a limit is data).
func (r *Report) Limit(limit, detail string) int {
	r.Str("limit", limit)
	r.Str("detail", detail)
	return r.emit("limit", 0)
}

// Error: the workload itself failed (exit 1).
func (r *Report) Error(detail string) int {
	r.Str("detail", detail)
	fmt.Fprintf(os.Stderr, "%s: %s\n", prog, detail)
	return r.emit("error", 1)
}

// ProcStatusKB returns a /proc/self/status field in kB (or a plain count), -1 if absent.
func ProcStatusKB(key string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := s.Text()
		if strings.HasPrefix(line, key+":") {
			fields := strings.Fields(line[len(key)+1:])
			if len(fields) > 0 {
				v, err := strconv.ParseInt(fields[0], 10, 64)
				if err == nil {
					return v
				}
			}
		}
	}
	return -1
}

var t0 = time.Now()

// NowNs is monotonic nanoseconds (Go's monotonic clock reading).
func NowNs() uint64 { return uint64(time.Since(t0).Nanoseconds()) }


// Hold sleeps d seconds (the parked phase the harness samples).
func Hold(d float64) { time.Sleep(time.Duration(d * 1e9)) }
