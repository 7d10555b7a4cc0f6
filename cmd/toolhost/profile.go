//go:build !pprof

package main

// startProfile does nothing in an ordinary build; pprof.go, built with
// -tags pprof, writes a CPU profile.
func startProfile() (stop func()) { return func() {} }
