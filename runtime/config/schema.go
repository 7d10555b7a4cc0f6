package config

import (
	_ "embed"
	"slices"
)

//go:generate go test -run TestSchemaIsUpToDate -update

// schemaJSON is generated from Config by TestSchemaIsUpToDate (run
// `go generate ./runtime/config` after changing a config type), so the
// schema cannot drift from what Load accepts: the test fails when it does.
//
//go:embed schema.json
var schemaJSON []byte

// Schema returns the JSON Schema (draft 2020-12) of a config file. Editors
// use it through "$schema"; `toolhost` can print it. The caller may modify
// the returned slice.
func Schema() []byte { return slices.Clone(schemaJSON) }
