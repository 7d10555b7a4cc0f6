package python_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/plugins/python"
	"github.com/toolhost/toolhost/plugins/python/pytooltest"
	"github.com/toolhost/toolhost/plugins/wasm"
)

// load loads testdata/name or a file holding src, with a fresh schema cache.
func load(t *testing.T, name, src string) *python.File {
	t.Helper()
	p := filepath.Join("testdata", name)
	if src != "" {
		p = filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := python.Load(context.Background(), p, python.LoadOptions{Runtime: pytooltest.Runtime(t), CacheDir: t.TempDir(), PoolSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(context.Background()) })
	return f
}

func def(t *testing.T, f *python.File, id string) python.Def {
	t.Helper()
	for _, d := range f.Defs {
		if d.ID == id {
			return d
		}
	}
	t.Fatalf("no tool %s in %+v", id, f.Defs)
	return python.Def{}
}

func TestAPythonFileListsItsToolsWithSchemasFromAnnotations(t *testing.T) {
	t.Parallel()
	f := load(t, "weather.py", "")
	w := def(t, f, "weather")
	if !strings.HasPrefix(w.Description, "Forecast for a city.") || strings.Contains(w.Description, "Args:") {
		t.Errorf("description = %q", w.Description)
	}
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	if err := json.Unmarshal(w.Schema, &s); err != nil {
		t.Fatal(err)
	}
	if s.Properties["city"]["type"] != "string" || s.Properties["city"]["description"] != "the city's name" ||
		s.Properties["days"]["type"] != "integer" || s.Properties["days"]["default"] != 1.0 ||
		s.Properties["verbose"]["type"] != "boolean" || len(s.Required) != 1 || s.Required[0] != "city" {
		t.Errorf("schema = %s", w.Schema)
	}
	if e := s.Properties["unit"]["enum"]; e == nil {
		t.Errorf("Literal gave no enum: %s", w.Schema)
	}
	fc := def(t, f, "weather_forecast")
	if !strings.Contains(string(fc.Schema), `"a note"`) || !strings.Contains(string(fc.Schema), `"array"`) {
		t.Errorf("forecast schema = %s", fc.Schema)
	}
}

func TestACallGetsTypedArgumentsAndDefaultsAndAnExceptionIsAToolError(t *testing.T) {
	t.Parallel()
	f := load(t, "weather.py", "")
	ctx := context.Background()
	lim := python.Limits{Timeout: 20 * time.Second, MemoryMaxMB: 256}
	out, err := f.Call(ctx, def(t, f, "weather"), json.RawMessage(`{"city":"Oslo","verbose":true}`), python.CallInfo{}, lim, python.Sandbox{}, nil)
	if err != nil || out.Output != "Oslo: 1 day(s) in c, verbose=True" {
		t.Fatalf("call = %+v, %v", out, err)
	}
	out, err = f.Call(ctx, def(t, f, "weather_forecast"), json.RawMessage(`{"cities":["a","b"]}`), python.CallInfo{}, lim, python.Sandbox{}, nil)
	if err != nil || out.Output != "a, b" || out.Title != "forecast" || out.Metadata["n"] != 2.0 {
		t.Fatalf("call = %+v, %v", out, err)
	}
	_, err = f.Call(ctx, def(t, f, "weather_forecast"), json.RawMessage(`{"cities":[]}`), python.CallInfo{}, lim, python.Sandbox{}, nil)
	var te *python.ToolError
	if !errors.As(err, &te) || te.Message != "ValueError: no cities given" {
		t.Fatalf("err = %v", err)
	}
	_ = wasm.ErrTimeout
}

func TestObjectsEnumsAndUnionsHaveSchemasAndDataclassesArriveAsInstances(t *testing.T) {
	t.Parallel()
	f := load(t, "shapes.py", "")
	d := def(t, f, "shapes")
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	if err := json.Unmarshal(d.Schema, &s); err != nil {
		t.Fatal(err)
	}
	p, box := s.Properties["p"], s.Properties["box"]
	if p["type"] != "object" || fmt.Sprint(p["required"]) != "[x]" || box["type"] != "object" || fmt.Sprint(box["required"]) != "[h w]" {
		t.Errorf("objects: %s", d.Schema)
	}
	if fmt.Sprint(s.Properties["color"]["enum"]) != "[red blue]" || s.Properties["extra"]["anyOf"] == nil || s.Properties["label"]["anyOf"] == nil {
		t.Errorf("enum and unions: %s", d.Schema)
	}
	if fmt.Sprint(s.Properties["sizes"]["default"]) != "[1 2]" || fmt.Sprint(s.Required) != "[p box]" {
		t.Errorf("defaults: %s", d.Schema)
	}
	out, err := f.Call(context.Background(), d, json.RawMessage(`{"p":{"x":1.5},"box":{"w":2,"h":3},"extra":{"a":1}}`), python.CallInfo{}, python.Limits{Timeout: time.Minute, MemoryMaxMB: 256}, python.Sandbox{}, nil)
	if err != nil || out.Output != "Point 1.5,0.0 2x3 Color.RED {'a': 1} None [1, 2]" {
		t.Fatalf("call = %+v, %v", out, err)
	}
}

func TestConcurrentCallsEachGetTheirOwnInstance(t *testing.T) {
	t.Parallel()
	f := load(t, "weather.py", "")
	d := def(t, f, "weather")
	errs := make(chan error, 4)
	for i := range 4 {
		go func() {
			out, err := f.Call(context.Background(), d, json.RawMessage(fmt.Sprintf(`{"city":"c%d","days":%d}`, i, i)), python.CallInfo{}, python.Limits{Timeout: time.Minute, MemoryMaxMB: 256}, python.Sandbox{}, nil)
			if err == nil && out.Output != fmt.Sprintf("c%d: %d day(s) in c, verbose=False", i, i) {
				err = fmt.Errorf("call %d got %q", i, out.Output)
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
