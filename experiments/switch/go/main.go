// wl-switch-go - switch, variant `go`: two goroutines hand control to each
// other over unbuffered channels, n round trips (2n goroutine switches), with
// GOMAXPROCS=1 so every hand-off is a switch on one OS thread, as switch's
// `coro` variant runs two coroutines on one worker.
//
// Figures: ops = 2n switches, ops_per_s, ns_per_switch (first send to the
// last receive), vol/invol context switches of the process over that region.
package main

import (
	"os"
	"runtime"

	wl "lab/experiments/common/go"
)

func main() {
	a := wl.Parse("switch", []string{"go"})
	runtime.GOMAXPROCS(1)
	r := wl.NewReport(a)
	r.Int("gomaxprocs", 1)
	n := a.N
	ping, pong := make(chan struct{}), make(chan struct{})
	go func() {
		for i := int64(0); i < n; i++ {
			<-ping
			pong <- struct{}{}
		}
	}()
	wl.RegionBegin()
	t0 := wl.NowNs()
	for i := int64(0); i < n; i++ {
		ping <- struct{}{}
		<-pong
	}
	t1 := wl.NowNs()
	wl.RegionEnd()
	sw := 2 * n
	wall := float64(t1-t0) / 1e9
	r.Str("mechanism", "unbuffered channel ping-pong, GOMAXPROCS=1")
	r.Num("wall_s", wall)
	r.Int("ops", sw)
	r.Num("ops_per_s", float64(sw)/wall)
	r.Num("ns_per_switch", float64(t1-t0)/float64(sw))
	os.Exit(r.OK())
}
