package host

import "context"

// addWasm discovers wasm tools in the config directories. It is wired to
// package plugins once that lands.
func (h *Host) addWasm(ctx context.Context, opts Options) error { return nil }
