//go:generate go run github.com/toolhost/toolhost/sdk-guest/go/cmd/toolhost-gen

// Command forecast is a wasm tool that asks its host for the weather: it
// calls the host function weather, which the embedding program (../..,
// main.go) adds, through the guest SDK's CallHost.
package main

import (
	"fmt"

	tool "github.com/toolhost/toolhost/sdk-guest/go"
)

type Args struct {
	City string `json:"city" jsonschema:"description=The city"`
}

type Forecast struct {
	City string `json:"city"`
	Sky  string `json:"sky"`
	MaxC int    `json:"max_c"`
}

var _ = tool.Define("", "Today's weather in a city, from the host.", func(ctx *tool.Context, a Args) (tool.Result, error) {
	var f Forecast
	// A refusal (a deny rule, a person saying no) comes back as a
	// *tool.PermissionError: returned unchanged, the host reports it as
	// it reports a built-in tool's.
	if err := ctx.CallHost("weather", map[string]string{"city": a.City}, &f); err != nil {
		return tool.Result{}, err
	}
	return tool.Text(fmt.Sprintf("%s: %s, up to %d°C", f.City, f.Sky, f.MaxC)), nil
})

func main() {}
