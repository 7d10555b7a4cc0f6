// Command host embeds toolhost as a library through its public API alone:
// host.New assembles the project's tools (built-in, wasm, JS, Python,
// plugins, MCP), Tools lists them and Call runs one. It also adds a host
// function of its own, weather, which the project's wasm, JS and Python
// tools can call (hostfns.Define), under the permission "weather".
// Usage: host <tool> '<json args>'.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/toolhost/toolhost/host"
	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/runtime"
)

// City is weather's argument, as guests send it: {"city": "Paris"}.
type City struct {
	City string `json:"city"`
}

// Forecast is weather's result.
type Forecast struct {
	City string `json:"city"`
	Sky  string `json:"sky"`
	MaxC int    `json:"max_c"`
}

// forecasts stands in for what only the embedding program can reach (its
// database, its service credentials): guests get at it through weather,
// never directly.
var forecasts = map[string]Forecast{
	"paris": {City: "Paris", Sky: "clear", MaxC: 21},
	"oslo":  {City: "Oslo", Sky: "snow", MaxC: -3},
	"mars":  {City: "Mars", Sky: "dust", MaxC: -60},
}

// weather is the host function this program adds. Each call is checked
// against the permission "weather" with the city as its pattern, so a
// project's toolhost.json decides which tools may ask about which city:
// {"permission": {"weather": {"*": "allow", "mars": "deny"}}}.
var weather = hostfns.Func[City, Forecast]{
	Name:        "weather",
	Permission:  "weather",
	Description: "Today's forecast for a city.",
	Patterns:    func(c City) []string { return []string{strings.ToLower(c.City)} },
	Run: func(_ context.Context, _ hostfns.Caller, c City) (Forecast, error) {
		f, ok := forecasts[strings.ToLower(c.City)]
		if !ok {
			return Forecast{}, fmt.Errorf("no forecast for %q", c.City)
		}
		return f, nil
	},
}

// options are the host this program assembles: toolhost's defaults (the
// config directories, the session store, every tool source) and weather.
func options() (host.Options, error) {
	def, err := hostfns.Define(weather)
	if err != nil {
		return host.Options{}, err
	}
	return host.Options{HostFuncs: []hostfns.Def{def}}, nil
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: host <tool> '<json args>'")
		os.Exit(2)
	}
	ctx := context.Background()
	opts, err := options()
	check(err)
	h, err := host.New(ctx, opts)
	check(err)
	defer h.Close(ctx)
	for _, p := range h.LoadErrors {
		fmt.Fprintln(os.Stderr, "skipped:", p)
	}
	tools, err := h.Tools(ctx, "", "")
	check(err)
	fmt.Fprintf(os.Stderr, "%d tools offered\n", len(tools))
	res, err := h.Call(ctx, runtime.Call{Tool: os.Args[1], Args: []byte(os.Args[2]), SessionID: "example"})
	check(err)
	fmt.Println(res.Output)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
