// Command jsonwork is the Go guest of the termination-check benchmark
// (checks_bench_test.go): ordinary work with encoding/json on its input
// and its output — it decodes a list of records, aggregates them and
// encodes every record back with its totals.
package main

import (
	"encoding/json"
	"sort"
	"strings"

	tool "github.com/toolhost/toolhost/sdk-guest/go"
)

type Item struct {
	Name  string            `json:"name"`
	Tags  []string          `json:"tags"`
	Score float64           `json:"score"`
	Count int               `json:"count"`
	Attrs map[string]string `json:"attrs,omitempty"`
}

type Args struct {
	Items []Item `json:"items"`
}

type Out struct {
	Items   []Item         `json:"items"`
	Total   int            `json:"total"`
	Mean    float64        `json:"mean"`
	ByTag   map[string]int `json:"by_tag"`
	Longest string         `json:"longest"`
}

var _ = tool.Main("Aggregate records.", func(ctx *tool.Context, a Args) (tool.Result, error) {
	o := Out{Items: a.Items, ByTag: map[string]int{}}
	sum := 0.0
	for _, it := range a.Items {
		o.Total += it.Count
		sum += it.Score
		for _, t := range it.Tags {
			o.ByTag[strings.ToLower(t)]++
		}
		if len(it.Name) > len(o.Longest) {
			o.Longest = it.Name
		}
	}
	if len(a.Items) > 0 {
		o.Mean = sum / float64(len(a.Items))
	}
	sort.Slice(o.Items, func(i, j int) bool { return o.Items[i].Score > o.Items[j].Score })
	b, err := json.Marshal(o)
	if err != nil {
		return tool.Result{}, err
	}
	return tool.Text(string(b)), nil
})

//go:wasmexport description
func description() int32 { return tool.ExportDescription("") }

//go:wasmexport schema
func schema() int32 { return tool.ExportSchema("") }

//go:wasmexport execute
func execute() int32 { return tool.ExportExecute("") }

func main() {}
