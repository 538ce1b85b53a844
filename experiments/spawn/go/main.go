// wl-spawn-go - spawn, variant `go`: N goroutines that each sleep 1 ms and
// end, the same work as spawn's pthread and coro variants (and claim C1's
// goroutine figure), measured the same way.
//
// The main goroutine starts the N goroutines one after another; each records
// when it first ran and how long its time.Sleep(1 ms) really took, and
// signals a WaitGroup.  The measured region runs from the first go statement
// to the last goroutine's end.
// Figures: spawn_s (first go statement to last), wall_s (the region),
// spawn_ns_per_task, ops = N, ops_per_s, three latencies per goroutine as the
// C variants report them: lat_* (go statement -> work done), start_lat_* (go
// statement -> first run: the scheduler's delay), sleep_lat_* (the 1 ms
// sleep itself); the region's CPU and context switches; Go version and
// GOMAXPROCS (the Go runtime sizes it from the sandbox's cpuset).
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
	spawnedAt := make([]uint64, n)
	startLat := make([]uint64, n)
	sleepLat := make([]uint64, n)
	var wg sync.WaitGroup
	wg.Add(int(n))
	r.Baseline()
	wl.RegionBegin()
	t0 := wl.NowNs()
	for i := int64(0); i < n; i++ {
		spawnedAt[i] = wl.NowNs()
		go func(i int64) {
			s := wl.NowNs()
			startLat[i] = s - spawnedAt[i]
			time.Sleep(time.Millisecond)
			sleepLat[i] = wl.NowNs() - s
			wg.Done()
		}(i)
	}
	tSpawned := wl.NowNs()
	wg.Wait()
	wall := wl.RegionEnd()
	r.Int("done", n)
	r.Num("spawn_s", float64(tSpawned-t0)/1e9)
	r.Num("wall_s", wall)
	r.Num("spawn_ns_per_task", float64(tSpawned-t0)/float64(n))
	r.Int("ops", n)
	r.Num("ops_per_s", float64(n)/wall)
	total := make([]uint64, n)
	for i := range total {
		total[i] = startLat[i] + sleepLat[i]
	}
	r.Latencies(total)
	r.LatenciesAs("start_lat", startLat)
	r.LatenciesAs("sleep_lat", sleepLat)
	os.Exit(r.OK())
}
