// wl-spawn-go - spawn, variant `go`: N goroutines that each sleep 1 ms and
// end, the same work as spawn's pthread and coro variants (and claim C1's
// goroutine figure), measured the same way.
//
// The main goroutine starts the N goroutines one after another; each records
// how long its time.Sleep(1 ms) really took and signals a WaitGroup.
// Figures: spawn_s (first go statement to last), wall_s (first go statement
// to the last goroutine's end), spawn_ns_per_task, ops = N, ops_per_s,
// latencies = actual sleep per goroutine, the process's CPU and context
// switches over that region, VmHWM, Go version and GOMAXPROCS (the Go runtime
// sizes it from the sandbox's cpuset).
package main

import (
	"os"
	"sync"
	"time"

	wl "lab/experiments/common/go"
)

func main() {
	a := wl.Parse("spawn", []string{"go"})
	r := wl.NewReport(a)
	n := a.N
	lat := make([]uint64, n)
	var wg sync.WaitGroup
	wg.Add(int(n))
	ru0 := wl.Rusage()
	t0 := wl.NowNs()
	for i := int64(0); i < n; i++ {
		go func(i int64) {
			s := wl.NowNs()
			time.Sleep(time.Millisecond)
			lat[i] = wl.NowNs() - s
			wg.Done()
		}(i)
	}
	tSpawned := wl.NowNs()
	wg.Wait()
	tEnd := wl.NowNs()
	ru1 := wl.Rusage()
	wall := float64(tEnd-t0) / 1e9
	r.Int("done", n)
	r.Num("spawn_s", float64(tSpawned-t0)/1e9)
	r.Num("wall_s", wall)
	r.Num("spawn_ns_per_task", float64(tSpawned-t0)/float64(n))
	r.Int("ops", n)
	r.Num("ops_per_s", float64(n)/wall)
	r.Int("vm_hwm_bytes", wl.ProcStatusKB("VmHWM")*1024)
	r.Usage(ru0, ru1)
	r.Latencies(lat)
	os.Exit(r.OK())
}
