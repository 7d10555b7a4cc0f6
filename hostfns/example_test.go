package hostfns_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

type City struct {
	City string `json:"city"`
}

type Forecast struct {
	Sky string `json:"sky"`
}

// Adding a host function: Define checks it once, host.Options.HostFuncs
// hands it to every guest engine, and guests call it by name — a Go wasm
// guest with ctx.CallHost("weather", args, &out), a JS tool with
// context.callHost("weather", args). Each call is checked against its
// permission first. Here the call is made as a script engine makes it,
// with rules that allow every city but Mars.
func ExampleDefine() {
	weather, err := hostfns.Define(hostfns.Func[City, Forecast]{
		Name:       "weather",
		Permission: "weather",
		Patterns:   func(c City) []string { return []string{strings.ToLower(c.City)} },
		Run: func(_ context.Context, caller hostfns.Caller, c City) (Forecast, error) {
			return Forecast{Sky: "clear over " + c.City + ", asked by " + caller.Tool}, nil
		},
	})
	fmt.Println(weather.Name(), weather.Permission(), err)
	// host.New(ctx, host.Options{HostFuncs: []hostfns.Def{weather}})

	_, err = hostfns.Define(hostfns.Func[City, Forecast]{Name: "ask", Permission: "weather",
		Run: func(context.Context, hostfns.Caller, City) (Forecast, error) { return Forecast{}, nil }})
	fmt.Println(err != nil)

	funcs, _ := hostfns.NewSet(weather)
	rules := permission.Ruleset{
		{Permission: "weather", Pattern: "*", Action: permission.Allow},
		{Permission: "weather", Pattern: "mars", Action: permission.Deny},
	}
	perms := permission.NewService(nil, nil, nil)
	tc := runtime.NewContext(runtime.Context{SessionID: "s1"}, nil, func(ctx context.Context, req permission.Request) error {
		return perms.Ask(ctx, rules, req)
	})
	for _, city := range []string{"Paris", "Mars"} {
		call := &hostfns.Call{Tool: "forecast", Context: tc, Funcs: funcs}
		arg, _ := json.Marshal(hostfns.CallRequest{Fn: "weather", Args: json.RawMessage(`{"city":"` + city + `"}`)})
		reply, _, _ := hostfns.Script(context.Background(), call, hostfns.NameCall, arg)
		r := reply.(hostfns.CallReply)
		fmt.Printf("%s: %s%s\n", city, r.Value, r.Kind)
	}
	// Output:
	// weather weather <nil>
	// true
	// Paris: {"sky":"clear over Paris, asked by forecast"}
	// Mars: denied
}
