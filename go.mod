// The lab's Go peers (experiments/*/go): standard library only, so building
// them needs no module download (GOFLAGS=-mod=mod is never used; GOPROXY=off).
module lab

go 1.19
