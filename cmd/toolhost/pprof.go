//go:build pprof

package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
)

// startProfile writes a CPU profile of the whole process to the file named
// by TOOLHOST_CPUPROFILE, for binaries built with -tags pprof (the MCP
// server benchmarks build one with TOOLHOST_E2E_TAGS=pprof). The profile is
// also finished when the process is stopped with SIGTERM, as a server
// under benchmark is.
func startProfile() (stop func()) {
	path := os.Getenv("TOOLHOST_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolhost: cpu profile: %v\n", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintf(os.Stderr, "toolhost: cpu profile: %v\n", err)
		f.Close()
		return func() {}
	}
	stop = func() {
		pprof.StopCPUProfile()
		f.Close()
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	go func() {
		<-sig
		stop()
		os.Exit(143)
	}()
	return stop
}
