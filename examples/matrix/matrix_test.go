package matrix

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/plugins/wasm"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// cacheDir is wazero's compilation cache for the matrix, shared by runs:
// it is keyed by module content, so each module compiles once per machine.
var cacheDir = filepath.Join(os.TempDir(), "toolhost-matrix", "cache")

// setup is one language's module loaded into a fresh host and registry.
type setup struct {
	reg   *runtime.Registry
	tools []string
}

// load copies the module into a config directory as words.wasm — every
// language's module gets the same name, so the same tool ids — and loads
// it through wasm.Engine into a registry with the given config (JSON) and
// asker.
func load(t *testing.T, mod, cfgJSON string, asker permission.Asker) setup {
	t.Helper()
	return loadAs(t, mod, "words.wasm", cfgJSON, asker)
}

// loadAs is load with another file name for the module.
func loadAs(t *testing.T, mod, file, cfgJSON string, asker permission.Asker) setup {
	t.Helper()
	cfg := &config.Config{}
	if cfgJSON != "" {
		if err := json.Unmarshal([]byte(cfgJSON), cfg); err != nil {
			t.Fatalf("config %s: %v", cfgJSON, err)
		}
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "tool"), 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, mod, filepath.Join(dir, "tool", file))
	host := wasm.NewEngine(wasm.EngineOptions{CacheDir: cacheDir, Config: cfg})
	t.Cleanup(func() { host.Close(context.Background()) })
	tools, errs := host.Discover(context.Background(), []string{dir})
	for _, e := range errs {
		t.Errorf("load error: %v", e)
	}
	project := t.TempDir()
	reg, err := runtime.NewRegistry(runtime.Options{Config: cfg, Asker: asker, DataDir: t.TempDir(), Directory: project, Worktree: project})
	if err != nil {
		t.Fatal(err)
	}
	reg.Add(runtime.SourceWasm, tools...)
	s := setup{reg: reg}
	for _, tl := range tools {
		s.tools = append(s.tools, tl.ID())
	}
	slices.Sort(s.tools)
	return s
}

func (s setup) call(t *testing.T, session, tool, args string) (runtime.Result, error) {
	t.Helper()
	return s.reg.Call(context.Background(), runtime.Call{Tool: tool, Args: json.RawMessage(args), SessionID: session})
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// allow answers every question "once"; reject answers "reject".
var (
	allow = permission.AskerFunc(func(context.Context, permission.Request) (permission.Reply, error) {
		return permission.Reply{Kind: permission.Once}, nil
	})
	reject = permission.AskerFunc(func(context.Context, permission.Request) (permission.Reply, error) {
		return permission.Reply{Kind: permission.Reject}, nil
	})
)

// TestLanguagesPassTheSameConformanceSuite builds the words example of
// every language and runs the same checks on each.
func TestLanguagesPassTheSameConformanceSuite(t *testing.T) {
	t.Parallel()
	for _, l := range languages {
		t.Run(l.name, func(t *testing.T) {
			t.Parallel()
			conformance(t, module(t, l))
		})
	}
}

// conformance is the suite every language's words module must pass.
func conformance(t *testing.T, mod string) {
	t.Run("the module provides its main tool and every named tool", func(t *testing.T) {
		t.Parallel()
		s := load(t, mod, "", nil)
		want := []string{"words", "words_greet", "words_note", "words_reverse"}
		if !slices.Equal(s.tools, want) {
			t.Fatalf("tools = %v, want %v", s.tools, want)
		}
	})

	t.Run("descriptions and schemas reach the model's tool list", func(t *testing.T) {
		t.Parallel()
		s := load(t, mod, "", nil)
		infos, err := s.reg.Tools(context.Background(), "", "build")
		if err != nil {
			t.Fatal(err)
		}
		byID := map[string]runtime.ToolInfo{}
		for _, ti := range infos {
			byID[ti.ID] = ti
		}
		tests := []struct{ tool, description, param string }{
			{"words", "Counts the lines, words and characters", "text"},
			{"words_reverse", "Reverses a text", "text"},
			{"words_greet", "configured greeting", "name"},
			{"words_note", "asks permission \"remember\"", "key"},
		}
		for _, tt := range tests {
			ti, ok := byID[tt.tool]
			if !ok {
				t.Errorf("%s not offered; offered %v", tt.tool, infos)
				continue
			}
			if !strings.Contains(ti.Description, tt.description) {
				t.Errorf("%s description = %q, want it to contain %q", tt.tool, ti.Description, tt.description)
			}
			var schema struct {
				Type       string                     `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			}
			if err := json.Unmarshal(ti.Parameters, &schema); err != nil {
				t.Errorf("%s schema is not JSON: %v: %s", tt.tool, err, ti.Parameters)
				continue
			}
			if schema.Type != "object" || schema.Properties[tt.param] == nil || !slices.Contains(schema.Required, tt.param) {
				t.Errorf("%s schema = %s, want an object requiring %q", tt.tool, ti.Parameters, tt.param)
			}
		}
	})

	t.Run("execute returns a structured result and reports progress live", func(t *testing.T) {
		t.Parallel()
		s := load(t, mod, "", nil)
		var mu sync.Mutex
		var titles []string
		res, err := s.reg.Call(context.Background(), runtime.Call{
			Tool: "words", Args: json.RawMessage(`{"text": "one two\nthree"}`),
			OnMetadata: func(title string, _ map[string]any) {
				mu.Lock()
				titles = append(titles, title)
				mu.Unlock()
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Output != "2 lines, 3 words, 13 characters" || res.Title != "words" {
			t.Errorf("result = %q (title %q)", res.Output, res.Title)
		}
		if res.Metadata["words"] != float64(3) || res.Metadata["lines"] != float64(2) || res.Metadata["characters"] != float64(13) {
			t.Errorf("metadata = %v", res.Metadata)
		}
		mu.Lock()
		defer mu.Unlock()
		if !slices.Contains(titles, "counted 3 words") {
			t.Errorf("live metadata titles = %q, want one %q", titles, "counted 3 words")
		}
	})

	t.Run("non-ASCII text round-trips through arguments and output", func(t *testing.T) {
		t.Parallel()
		s := load(t, mod, "", nil)
		tests := []struct{ name, tool, text, want string }{
			{"accented Latin is reversed by character", "words_reverse", "héllo wörld", "dlröw olléh"},
			{"CJK, emoji outside the BMP and escapes survive", "words_reverse", "日本語 🎉 \"q\"\t\\", "\\\t\"q\" 🎉 語本日"},
			{"characters are counted as code points, not bytes", "words", "héllo wörld 🎉", "1 lines, 3 words, 13 characters"},
		}
		for _, tt := range tests {
			args, _ := json.Marshal(map[string]string{"text": tt.text})
			res, err := s.call(t, "", tt.tool, string(args))
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
				continue
			}
			if res.Output != tt.want {
				t.Errorf("%s: output = %q, want %q", tt.name, res.Output, tt.want)
			}
		}
	})

	t.Run("config reaches the guest", func(t *testing.T) {
		t.Parallel()
		tests := []struct{ name, cfg, want string }{
			{"a configured value is used", `{"wasm": {"words_greet": {"config": {"greeting": "Grüß Gott"}}}}`, "Grüß Gott, Zoë!"},
			{"module-wide config applies to each tool", `{"wasm": {"words": {"config": {"greeting": "Hi"}}}}`, "Hi, Zoë!"},
			{"an absent key takes the tool's default", "", "Hello, Zoë!"},
		}
		for _, tt := range tests {
			s := load(t, mod, tt.cfg, nil)
			res, err := s.call(t, "", "words_greet", `{"name": "Zoë"}`)
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			} else if res.Output != tt.want {
				t.Errorf("%s: output = %q, want %q", tt.name, res.Output, tt.want)
			}
		}
	})

	// Permission "remember" is allowed by the build agent's defaults; these
	// rules make it ask, or deny it.
	const askRemember = `{"permission": {"remember": "ask"}}`

	t.Run("an allowed ask lets the guest act, and its state follows the session", func(t *testing.T) {
		t.Parallel()
		var mu sync.Mutex
		var asked []permission.Request
		asker := permission.AskerFunc(func(ctx context.Context, req permission.Request) (permission.Reply, error) {
			mu.Lock()
			asked = append(asked, req)
			mu.Unlock()
			return permission.Reply{Kind: permission.Once}, nil
		})
		s := load(t, mod, askRemember, asker)
		res, err := s.call(t, "ses_a", "words_note", `{"key": "colour", "value": "grün"}`)
		if err != nil || res.Output != "remembered colour" {
			t.Fatalf("remember = %q, %v", res.Output, err)
		}
		if res, err := s.call(t, "ses_a", "words_note", `{"key": "colour"}`); err != nil || res.Output != "grün" {
			t.Errorf("recall in the same session = %q, %v; want grün", res.Output, err)
		}
		if _, err := s.call(t, "ses_b", "words_note", `{"key": "colour"}`); err == nil {
			t.Errorf("another session recalled the note")
		}
		mu.Lock()
		defer mu.Unlock()
		if len(asked) != 1 || asked[0].Permission != "remember" || !slices.Equal(asked[0].Patterns, []string{"colour"}) ||
			asked[0].Tool != "words_note" || asked[0].SessionID != "ses_a" {
			t.Errorf("asked = %+v, want one remember request for colour", asked)
		}
	})

	t.Run("a refused ask comes back as the typed refusal and the guest does not act", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			name  string
			cfg   string
			asker permission.Asker
			kind  permission.Outcome
		}{
			{"a rule's deny is a denial", `{"permission": {"remember": "deny"}}`, allow, "denied"},
			{"a person's reject is a rejection", askRemember, reject, "rejected"},
		}
		for _, tt := range tests {
			s := load(t, mod, tt.cfg, tt.asker)
			_, err := s.call(t, "ses_c", "words_note", `{"key": "k", "value": "v"}`)
			if got := permission.Kind(err); got != tt.kind {
				t.Errorf("%s: err = %T %v, want kind %q", tt.name, err, err, tt.kind)
			}
			if res, err := s.call(t, "ses_c", "words_note", `{"key": "k"}`); err == nil {
				t.Errorf("%s: the guest acted although refused: recalled %q", tt.name, res.Output)
			}
		}
	})

	t.Run("a guest error reaches the model with the guest's message", func(t *testing.T) {
		t.Parallel()
		s := load(t, mod, "", nil)
		_, err := s.call(t, "", "words_note", `{"key": "nope"}`)
		var ge *wasm.GuestError
		if !errors.As(err, &ge) || !strings.Contains(err.Error(), `nothing remembered under "nope"`) {
			t.Fatalf("err = %T %v, want a GuestError naming the key", err, err)
		}
	})

	t.Run("arguments are validated against the guest's schema before execute", func(t *testing.T) {
		t.Parallel()
		s := load(t, mod, "", nil)
		_, err := s.call(t, "", "words_reverse", `{"text": 3}`)
		var ve *runtime.ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("err = %T %v, want a ValidationError", err, err)
		}
	})
}
