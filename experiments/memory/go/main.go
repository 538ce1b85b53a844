// wl-memory-go - memory, variant `go`: N goroutines parked alive, the same
// work as memory's pthread and coro variants (claim C2's goroutine side).
//
// Sequence, as memory/pthread.c:
//  1. report the baseline (VmRSS, the cgroup's memory), start N goroutines that each count
//     themselves and block on one channel (spawn_s: until all are parked);
//  2. read /proc/self/status: bytes_per_task = VmRSS / N, rss_delta_per_task
//     = (VmRSS now - baseline) / N, vss_bytes, pte_bytes;
//  3. print `@lab-parked` and stay parked for --duration seconds (default 1)
//     so the harness samples steady state;
//  4. close the channel and wait for all to end (release_s).
// wall_s and the CPU figures cover the measured region: step 1 (spawn until
// every goroutine is parked), as in the C variants.
// A goroutine's stack starts at 2 KiB (Go 1.19) and is the runtime's own: no
// --stack.  Go version and GOMAXPROCS are reported.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	wl "lab/experiments/common/go"
)

func main() {
	a := wl.Parse("memory", []string{"go"})
	r := wl.NewReport(a)
	n := a.N
	hold := a.Duration
	if hold <= 0 {
		hold = 1
	}
	release := make(chan struct{})
	var parked int64
	var wg sync.WaitGroup
	allParked := make(chan struct{})
	runtime.GC()
	rss0 := wl.ProcStatusKB("VmRSS")
	r.Baseline()
	wl.RegionBegin()
	t0 := wl.NowNs()
	wg.Add(int(n))
	for i := int64(0); i < n; i++ {
		go func() {
			if atomic.AddInt64(&parked, 1) == n {
				close(allParked)
			}
			<-release
			wg.Done()
		}()
	}
	<-allParked
	tParked := wl.NowNs()
	wl.RegionEnd()
	rss := wl.ProcStatusKB("VmRSS") * 1024
	vss := wl.ProcStatusKB("VmSize") * 1024
	pte := wl.ProcStatusKB("VmPTE") * 1024
	spawn := float64(tParked-t0) / 1e9
	r.Int("done", n)
	r.Num("spawn_s", spawn)
	r.Num("spawn_ns_per_task", spawn*1e9/float64(n))
	r.Int("rss_bytes", rss)
	r.Int("vss_bytes", vss)
	r.Int("pte_bytes", pte)
	r.Int("threads_seen", wl.ProcStatusKB("Threads"))
	r.Num("bytes_per_task", float64(rss)/float64(n))
	r.Num("rss_delta_per_task", float64(rss-rss0*1024)/float64(n))
	r.Num("vss_per_task", float64(vss)/float64(n))
	fmt.Println("@lab-parked")
	os.Stdout.Sync()
	wl.Hold(hold)
	tRel := wl.NowNs()
	close(release)
	wg.Wait()
	r.Num("release_s", float64(wl.NowNs()-tRel)/1e9)
	r.Num("hold_s", hold)
	r.Num("wall_s", float64(tParked-t0)/1e9) // the measured region: spawn until all parked
	r.Int("ops", n)
	os.Exit(r.OK())
}
