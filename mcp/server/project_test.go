package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/mcp/server"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/session"
)

// wait is how long a test waits for a notification before calling it
// never sent.
const wait = 30 * time.Second

// clientTools are tools that use what the client lends them.
func clientTools() []runtime.Tool {
	type none struct{}
	talk := runtime.Define("talk", "Logs, samples and elicits.", func(ctx context.Context, _ none, tc *runtime.Context) (runtime.Result, error) {
		tc.ClientLog(ctx, -4, "a debug line")
		tc.ClientLog(ctx, 0, "an info line")
		tc.ClientLog(ctx, 8, "an error line")
		var out []string
		if res, err := tc.Sample(ctx, runtime.SampleRequest{MaxTokens: 10, Messages: []runtime.SampleMessage{{Role: "user", Content: runtime.SampleContent{Type: "text", Text: "hi"}}}}); err != nil {
			out = append(out, "sample: "+err.Error())
		} else {
			out = append(out, "sample: "+res.Model+" "+res.Content.Text)
		}
		if res, err := tc.Elicit(ctx, runtime.ElicitRequest{Message: "name?", RequestedSchema: map[string]any{
			"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string", "default": "Bob"}},
		}}); err != nil {
			out = append(out, "elicit: "+err.Error())
		} else {
			b, _ := json.Marshal(res.Content)
			out = append(out, "elicit: "+res.Action+" "+string(b))
		}
		return runtime.Result{Output: strings.Join(out, "\n")}, nil
	})
	media := runtime.Define("media", "Returns audio and JSON.", func(ctx context.Context, _ none, tc *runtime.Context) (runtime.Result, error) {
		return runtime.Result{Output: "media", Attachments: []runtime.Attachment{
			{MIME: "audio/wav", URL: "data:audio/wav;base64,UklGRg==", Filename: "a.wav"},
			{MIME: "application/json", URL: "data:application/json;base64,eyJhIjoxfQ==", Filename: "a.json"},
		}}, nil
	})
	big := runtime.Define("big", "Returns more lines than the model may read.", func(ctx context.Context, _ none, tc *runtime.Context) (runtime.Result, error) {
		var b strings.Builder
		for i := range 50 {
			b.WriteString("line " + string(rune('a'+i%26)) + "\n")
		}
		return runtime.Result{Output: b.String() + "THE END"}, nil
	})
	type reportParams struct {
		Values []float64 `json:"values"`
	}
	report := runtime.Define("report", "Reports the given progress values of 100.", func(ctx context.Context, p reportParams, tc *runtime.Context) (runtime.Result, error) {
		for _, v := range p.Values {
			tc.Metadata("working", map[string]any{"progress": v, "total": 100.0})
		}
		return runtime.Result{Output: "done"}, nil
	})
	return []runtime.Tool{talk, media, big, report}
}

type projectFixture struct {
	root, configDir string
	srv             *server.Server
}

func newProjectFixture(t *testing.T) *projectFixture {
	t.Helper()
	return newProjectFixtureWith(t, "")
}

// newProjectFixtureWith serves the project under the given permission
// rules (JSON; "" for none).
func newProjectFixtureWith(t *testing.T, permissionJSON string) *projectFixture {
	t.Helper()
	root := t.TempDir()
	cfgDir := filepath.Join(root, ".toolhost")
	files := map[string]string{
		".toolhost/skills/pdf/SKILL.md":       "---\nname: pdf\ndescription: Work with PDFs\n---\nUse pdftotext.",
		".toolhost/command/greet.md":          "---\ndescription: Greet someone\narguments:\n  - name: who\n    required: true\n    values: [world, wombat, ada]\n---\nHello, ${who}!",
		".toolhost/command/show.md":           "---\ndescription: Show a resource\narguments:\n  - name: uri\n    required: true\n---\n@${uri}\nWhat is this?",
		".toolhost/command/look.md":           "@img/dot.png @notes.md\nLook at these.",
		"img/dot.png":                         "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"notes.md":                            "# Notes",
		"resources/docs/guide.md":             "# Guide",
		"resources/docs/logo.png":             "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"resources/items/{id}/info.json":      `{"id": "{id}"}`,
		"resources/items/17/info.json":        `{"id": "17", "special": true}`,
		"resources/watch/me":                  "v1",
		"secret-outside-resources/secret.txt": "TOP SECRET",
	}
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "secret-outside-resources", "secret.txt"), filepath.Join(root, "resources", "docs", "leak.txt")); err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{ToolOutput: config.ToolOutput{MaxLines: 10}}
	if permissionJSON != "" {
		if err := json.Unmarshal([]byte(`{"permission": `+permissionJSON+`}`), cfg); err != nil {
			t.Fatal(err)
		}
	}
	store, err := session.Open(filepath.Join(t.TempDir(), "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := runtime.NewRegistry(runtime.Options{Config: cfg, Store: store, Asker: server.Asker{}, Directory: root, DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	reg.Add(runtime.SourceRuntime, clientTools()...)
	srv, err := server.New(context.Background(), reg, server.Options{
		ConfigDirs: []string{cfgDir}, Project: root, OutputDir: reg.OutputDir(), PollInterval: 10 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return &projectFixture{root: root, configDir: cfgDir, srv: srv}
}

func (f *projectFixture) connect(t *testing.T, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := f.srv.Connect(ctx, st); err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, opts).Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func textOf(r *sdk.CallToolResult) string {
	var out []string
	for _, c := range r.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	return strings.Join(out, "\n")
}

// TestToolsUseWhatTheClientLends: a client that samples, elicits and
// shows logs gets the tool's requests and its log lines at the level it
// chose; a client without them gives the tool errors that say so.
func TestToolsUseWhatTheClientLends(t *testing.T) {
	t.Parallel()
	f := newProjectFixture(t)
	lines := make(chan string, 10)
	var sampled *sdk.CreateMessageParams
	var elicited *sdk.ElicitParams
	cs := f.connect(t, &sdk.ClientOptions{
		CreateMessageHandler: func(_ context.Context, r *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			sampled = r.Params
			return &sdk.CreateMessageResult{Role: "assistant", Model: "m9", Content: &sdk.TextContent{Text: "hey"}}, nil
		},
		ElicitationHandler: func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			elicited = r.Params
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		},
		LoggingMessageHandler: func(_ context.Context, r *sdk.LoggingMessageRequest) {
			lines <- string(r.Params.Level) + " " + r.Params.Logger + ": " + r.Params.Data.(string)
		},
	})
	ctx := context.Background()
	if err := cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "talk", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(res); got != "sample: m9 hey\nelicit: accept {\"name\":\"Bob\"}" {
		t.Errorf("result = %q (the default of an omitted field is filled in)", got)
	}
	if sampled == nil || sampled.MaxTokens != 10 || sampled.Messages[0].Content.(*sdk.TextContent).Text != "hi" {
		t.Errorf("sampled %+v", sampled)
	}
	if elicited == nil || elicited.Message != "name?" {
		t.Errorf("elicited %+v", elicited)
	}
	for _, want := range []string{"info talk: an info line", "error talk: an error line"} {
		select {
		case got := <-lines:
			if got != want {
				t.Errorf("log line %q, want %q (the debug line is below the level set)", got, want)
			}
		case <-time.After(wait):
			t.Fatalf("no log line %q", want)
		}
	}

	bare := f.connect(t, &sdk.ClientOptions{})
	res, err = bare.CallTool(ctx, &sdk.CallToolParams{Name: "talk", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(res); got != "sample: "+runtime.ErrNoSampling.Error()+"\nelicit: "+runtime.ErrNoElicitation.Error() {
		t.Errorf("without the capabilities: %q", got)
	}
}

func TestAttachmentsBecomeAudioAndTextResourcesAndTruncatedOutputIsLinked(t *testing.T) {
	t.Parallel()
	f := newProjectFixture(t)
	cs := f.connect(t, nil)
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "media", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 3 {
		t.Fatalf("content = %+v", res.Content)
	}
	if a, ok := res.Content[1].(*sdk.AudioContent); !ok || a.MIMEType != "audio/wav" || string(a.Data) != "RIFF" {
		t.Errorf("audio = %#v", res.Content[1])
	}
	if r, ok := res.Content[2].(*sdk.EmbeddedResource); !ok || r.Resource.Text != `{"a":1}` {
		t.Errorf("JSON = %#v, want an embedded text resource", res.Content[2])
	}

	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "big", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	var link *sdk.ResourceLink
	for _, c := range res.Content {
		if l, ok := c.(*sdk.ResourceLink); ok {
			link = l
		}
	}
	if link == nil || !strings.HasPrefix(link.URI, "toolhost://tool-output/") {
		t.Fatalf("no link to the full output: %+v", res.Content)
	}
	if strings.Contains(textOf(res), "THE END") {
		t.Fatal("the output was not truncated; the test proves nothing")
	}
	full, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: link.URI})
	if err != nil || !strings.HasSuffix(full.Contents[0].Text, "THE END") {
		t.Fatalf("full output = %+v, %v", full, err)
	}
}

func TestSkillsAndCommandsArePrompts(t *testing.T) {
	t.Parallel()
	f := newProjectFixture(t)
	cs := f.connect(t, nil)
	ctx := context.Background()
	list, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range list.Prompts {
		names = append(names, p.Name)
	}
	if strings.Join(names, " ") != "greet look pdf show" {
		t.Errorf("prompts = %v", names)
	}

	tests := []struct {
		name      string
		prompt    string
		args      map[string]string
		wantTypes string
		wantText  string
		wantErr   string
	}{
		{"a skill is its instructions", "pdf", nil, "text", "Use pdftotext.", ""},
		{"arguments are filled in", "greet", map[string]string{"who": "Ada"}, "text", "Hello, Ada!", ""},
		{"an argument may name a served resource", "show", map[string]string{"uri": "docs://guide.md"}, "resource text", "@docs://guide.md\nWhat is this?", ""},
		{"project files are embedded, images as images", "look", nil, "image resource text", "@img/dot.png @notes.md\nLook at these.", ""},
		{"a required argument is required", "greet", nil, "", "", "missing required argument"},
		{"an argument may not name a project file", "show", map[string]string{"uri": "notes.md"}, "", "", "not a file"},
		{"an argument may not name a file URI", "show", map[string]string{"uri": "file://" + filepath.Join(f.root, "notes.md")}, "", "", "no served resource"},
		{"an argument may not reach through a link", "show", map[string]string{"uri": "docs://leak.txt"}, "", "", "no served resource"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: tt.prompt, Arguments: tt.args})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var types []string
			for _, m := range res.Messages {
				switch c := m.Content.(type) {
				case *sdk.TextContent:
					types = append(types, "text")
					if c.Text != tt.wantText {
						t.Errorf("text = %q, want %q", c.Text, tt.wantText)
					}
				case *sdk.ImageContent:
					types = append(types, "image")
				case *sdk.EmbeddedResource:
					types = append(types, "resource")
					if strings.Contains(c.Resource.Text, "SECRET") {
						t.Fatal("embedded the secret")
					}
				}
			}
			if strings.Join(types, " ") != tt.wantTypes {
				t.Errorf("messages = %v, want %s", types, tt.wantTypes)
			}
		})
	}

	// A skill the agent may not load is no prompt either.
	denied := newProjectFixtureWith(t, `{"skill": {"pdf": "deny"}}`).connect(t, nil)
	if _, err := denied.GetPrompt(ctx, &sdk.GetPromptParams{Name: "pdf"}); err == nil {
		t.Error("a denied skill was served as a prompt")
	}

	// A command added while the server runs is offered at once.
	if err := os.WriteFile(filepath.Join(f.configDir, "command", "late.md"), []byte("late"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "late"}); err != nil || res.Messages[0].Content.(*sdk.TextContent).Text != "late" {
		t.Errorf("a new command: %+v, %v", res, err)
	}
}

func TestTheResourcesFolderIsServed(t *testing.T) {
	t.Parallel()
	f := newProjectFixture(t)
	cs := f.connect(t, nil)
	ctx := context.Background()
	uris := resourceURIs(t, cs)
	if strings.Join(uris, " ") != "docs://guide.md docs://logo.png items://17/info.json watch://me" {
		t.Errorf("resources = %v (the link out of the folder is not listed)", uris)
	}
	tmpls, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpls.ResourceTemplates) != 1 || tmpls.ResourceTemplates[0].URITemplate != "items://{id}/info.json" {
		t.Fatalf("templates = %+v, %v", tmpls, err)
	}
	tests := []struct {
		uri, wantMIME, wantText string
		wantBlob                bool
		wantErr                 bool
	}{
		{uri: "docs://guide.md", wantMIME: "text/markdown", wantText: "# Guide"},
		{uri: "docs://logo.png", wantMIME: "image/png", wantBlob: true},
		{uri: "items://5/info.json", wantMIME: "application/json", wantText: `{"id": "5"}`},
		{uri: "items://17/info.json", wantMIME: "application/json", wantText: `{"id": "17", "special": true}`},
		{uri: "docs://leak.txt", wantErr: true},
		{uri: "docs://../secret-outside-resources/secret.txt", wantErr: true},
		{uri: "file://" + filepath.Join(f.root, "notes.md"), wantErr: true},
		{uri: "toolhost://tool-output/anything", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: tt.uri})
			if tt.wantErr {
				if err == nil {
					t.Fatalf("read %+v", res.Contents[0])
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c := res.Contents[0]
			if c.MIMEType != tt.wantMIME || (tt.wantBlob && len(c.Blob) == 0) || (!tt.wantBlob && c.Text != tt.wantText) {
				t.Errorf("read %+v", c)
			}
		})
	}
}

func TestCompletionSuggestsArgumentValuesAndTemplateVariables(t *testing.T) {
	t.Parallel()
	f := newProjectFixture(t)
	cs := f.connect(t, nil)
	ctx := context.Background()
	tests := []struct {
		name string
		ref  *sdk.CompleteReference
		arg  sdk.CompleteParamsArgument
		want string
	}{
		{"a prompt argument's declared values", &sdk.CompleteReference{Type: "ref/prompt", Name: "greet"}, sdk.CompleteParamsArgument{Name: "who", Value: "w"}, "world,wombat"},
		{"nothing declared, nothing suggested", &sdk.CompleteReference{Type: "ref/prompt", Name: "show"}, sdk.CompleteParamsArgument{Name: "uri", Value: ""}, ""},
		{"a template variable's values from the folder", &sdk.CompleteReference{Type: "ref/resource", URI: "items://{id}/info.json"}, sdk.CompleteParamsArgument{Name: "id", Value: "1"}, "17"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: tt.ref, Argument: tt.arg})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(res.Completion.Values, ","); got != tt.want {
				t.Errorf("values = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSubscribersHearOfChangesUntilTheyUnsubscribe(t *testing.T) {
	t.Parallel()
	f := newProjectFixture(t)
	updates := make(chan string, 10)
	cs := f.connect(t, &sdk.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *sdk.ResourceUpdatedNotificationRequest) {
		updates <- r.Params.URI
	}})
	ctx := context.Background()
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: "nope://missing"}); err == nil {
		t.Error("subscribed to a resource that does not exist")
	}
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: "watch://me"}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(f.root, "resources", "watch", "me")
	if err := os.WriteFile(file, []byte("version two"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case uri := <-updates:
		if uri != "watch://me" {
			t.Errorf("update for %q", uri)
		}
	case <-time.After(wait):
		t.Fatal("no update after the file changed")
	}
	if got := f.srv.WatchedURIs(); strings.Join(got, " ") != "watch://me" {
		t.Errorf("watched %v", got)
	}
	if err := cs.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: "watch://me"}); err != nil {
		t.Fatal(err)
	}
	if got := f.srv.WatchedURIs(); len(got) != 0 {
		t.Errorf("still watched after unsubscribing: %v", got)
	}

	// A session that goes away without unsubscribing stops the watch.
	other := f.connect(t, nil)
	if err := other.Subscribe(ctx, &sdk.SubscribeParams{URI: "watch://me"}); err != nil {
		t.Fatal(err)
	}
	other.Close()
	deadline := time.Now().Add(wait)
	for len(f.srv.WatchedURIs()) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("still watched after the session closed: %v", f.srv.WatchedURIs())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestReportedProgressNumbersAreSentAsTheToolSaysWhileTheyGoUp: MCP wants
// progress to increase, so a value that does not is sent as one step on.
func TestReportedProgressNumbersAreSentAsTheToolSaysWhileTheyGoUp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		values []float64
		want   string
	}{
		{"increasing values are sent as they are, with the total", []float64{0, 50, 100}, "0/100 50/100 100/100"},
		{"a value that goes back counts one step", []float64{40, 10, 60}, "40/100 41/0 60/100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newProjectFixture(t)
			got := make(chan string, 10)
			cs := f.connect(t, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
				got <- fmt.Sprintf("%g/%g", r.Params.Progress, r.Params.Total)
			}})
			params := &sdk.CallToolParams{Name: "report", Arguments: map[string]any{"values": tt.values}}
			params.SetProgressToken("p1")
			if _, err := cs.CallTool(context.Background(), params); err != nil {
				t.Fatal(err)
			}
			var seen []string
			for range tt.values {
				select {
				case s := <-got:
					seen = append(seen, s)
				case <-time.After(wait):
					t.Fatalf("got %v, want %s", seen, tt.want)
				}
			}
			if strings.Join(seen, " ") != tt.want {
				t.Errorf("progress %v, want %s", seen, tt.want)
			}
		})
	}
}

// Resources and @file embeds reach the model through the client without a
// tool call, so what the read rules deny, or would ask a person about, is
// neither listed nor read nor embedded.
func TestResourcesAndEmbedsFollowTheReadRules(t *testing.T) {
	t.Parallel()
	f := newProjectFixtureWith(t, `{"read": {"*": "allow", "resources/docs/logo.png": "deny", "notes.md": "ask"}}`)
	cs := f.connect(t, nil)
	ctx := context.Background()
	uris := resourceURIs(t, cs)
	if strings.Join(uris, " ") != "docs://guide.md items://17/info.json watch://me" {
		t.Errorf("resources = %v, want the denied logo left out", uris)
	}
	if res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "docs://logo.png"}); err == nil {
		t.Errorf("the denied file was read: %+v", res.Contents[0])
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "docs://guide.md"}); err != nil {
		t.Errorf("an allowed file: %v", err)
	}
	// look embeds @img/dot.png and @notes.md; notes.md needs a person, so
	// its @word stays text, as for a file that is not there.
	res, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "look"})
	if err != nil {
		t.Fatal(err)
	}
	var embeds int
	for _, m := range res.Messages {
		b, _ := json.Marshal(m.Content)
		if strings.Contains(string(b), "# Notes") {
			t.Errorf("the prompt embedded notes.md, which the rules ask about: %s", b)
		}
		if _, ok := m.Content.(*sdk.ImageContent); ok {
			embeds++
		}
	}
	if embeds != 1 {
		t.Errorf("%d images embedded, want dot.png", embeds)
	}
}

// A link gives a file a second name. The read rules are about files, so a
// link whose own name they allow must not serve a file they deny: not as a
// resource, not as an @file embed, and not to a subscriber either.
func TestALinkDoesNotMakeADeniedFileReadable(t *testing.T) {
	t.Parallel()
	f := newProjectFixtureWith(t, `{"read": {"*": "allow", "resources/docs/logo.png": "deny", "secret-outside-resources/*": "deny"}}`)
	// Hidden files are not served either, whatever name leads to them.
	for _, hidden := range []string{"resources/.private/key.txt", ".private/creds.txt"} {
		p := filepath.Join(f.root, filepath.FromSlash(hidden))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("TOP SECRET"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"resources/docs/alias.png": "logo.png",
		"resources/docs/peek.txt":  filepath.Join("..", ".private", "key.txt"),
		"notes-link.md":            filepath.Join("secret-outside-resources", "secret.txt"),
		"creds-link.md":            filepath.Join(".private", "creds.txt"),
	}
	for link, target := range links {
		if err := os.Symlink(target, filepath.Join(f.root, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(f.configDir, "command", "leak.md"), []byte("@notes-link.md @creds-link.md\nSummarise."), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := f.connect(t, nil)
	ctx := context.Background()
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list.Resources {
		if r.URI == "docs://alias.png" || r.URI == "docs://peek.txt" {
			t.Errorf("a link to a file kept back is listed: %+v", r)
		}
	}
	for _, uri := range []string{"docs://alias.png", "docs://peek.txt"} {
		if res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("%s was read through a link: %+v", uri, res.Contents[0])
		}
	}
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: "docs://alias.png"}); err == nil {
		t.Error("a subscription to the denied logo through a link was accepted")
	}
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: "docs://logo.png"}); err == nil {
		t.Error("a subscription to the denied logo was accepted: its size and changes would be told")
	}
	res, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "leak"})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Messages {
		if b, _ := json.Marshal(m.Content); strings.Contains(string(b), "TOP SECRET") {
			t.Errorf("the prompt embedded the denied file through a link: %s", b)
		}
	}
}

// A hard link gives a file a second name with no link to resolve: the
// bytes of a denied or hidden file under a name the rules allow. A file is
// served only when every one of its names may be, and all of them were
// found in the project; two allowed names of one file are served.
func TestAHardLinkDoesNotMakeADeniedFileReadable(t *testing.T) {
	t.Parallel()
	f := newProjectFixtureWith(t, `{"read": {"*": "allow", "private/*": "deny", "*.env": "deny"}}`)
	outside := t.TempDir()
	files := map[string]string{
		filepath.Join(f.root, "private", "secret.md"):     "PRIVATE SECRET",
		filepath.Join(f.root, ".env"):                     "ENV SECRET",
		filepath.Join(f.root, ".private", "creds.txt"):    "HIDDEN SECRET",
		filepath.Join(f.root, ".git", "objects", "x.txt"): "HIDDEN DEEP SECRET",
		filepath.Join(outside, "key.txt"):                 "OUTSIDE SECRET",
	}
	for p, content := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{ // new name -> existing file
		"resources/docs/notes.md":  "private/secret.md",
		"resources/docs/env.md":    ".env",
		"resources/docs/creds.md":  ".private/creds.txt",
		"resources/docs/deep.md":   ".git/objects/x.txt",
		"resources/docs/key.md":    filepath.Join(outside, "key.txt"),
		"resources/docs/shared.md": "resources/docs/guide.md",
		"docs/readme.md":           ".env",
		"creds-embed.md":           ".private/creds.txt",
		"key-embed.md":             filepath.Join(outside, "key.txt"),
		"notes-again.md":           "notes.md",
	}
	for link, target := range links {
		if !filepath.IsAbs(target) {
			target = filepath.Join(f.root, filepath.FromSlash(target))
		}
		at := filepath.Join(f.root, filepath.FromSlash(link))
		if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(target, at); err != nil {
			t.Skipf("no hard links here: %v", err)
		}
	}
	if err := os.WriteFile(filepath.Join(f.configDir, "command", "leak.md"), []byte("@docs/readme.md @creds-embed.md @key-embed.md @notes-again.md\nSummarise."), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := f.connect(t, nil)
	ctx := context.Background()
	kept := []string{"docs://notes.md", "docs://env.md", "docs://creds.md", "docs://deep.md", "docs://key.md"}
	uris := resourceURIs(t, cs)
	for _, uri := range kept {
		if slices.Contains(uris, uri) {
			t.Errorf("%s, a hard link to a file kept back, is listed", uri)
		}
		if res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("%s was read through a hard link: %+v", uri, res.Contents[0])
		}
		if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: uri}); err == nil {
			t.Errorf("a subscription to %s was accepted: its size and changes would be told", uri)
		}
	}
	if !slices.Contains(uris, "docs://shared.md") {
		t.Errorf("docs://shared.md, a hard link whose every name is allowed, is not listed: %v", uris)
	}
	if res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "docs://shared.md"}); err != nil || res.Contents[0].Text != "# Guide" {
		t.Errorf("docs://shared.md, every name allowed: %v", err)
	}
	res, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "leak"})
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, m := range res.Messages {
		b, _ := json.Marshal(m.Content)
		all.Write(b)
	}
	if strings.Contains(all.String(), "SECRET") {
		t.Errorf("the prompt embedded a file kept back through a hard link: %s", all.String())
	}
	if !strings.Contains(all.String(), "# Notes") {
		t.Errorf("the prompt did not embed notes-again.md, whose every name is allowed: %s", all.String())
	}
}

// A resource template serves endless URIs, so a client could subscribe to
// thousands, each checked on every poll; a session's subscriptions are
// capped.
func TestASessionMayNotSubscribeWithoutLimit(t *testing.T) {
	t.Parallel()
	f := newProjectFixture(t)
	cs := f.connect(t, nil)
	ctx := context.Background()
	var err error
	n := 0
	for ; n < server.MaxSubscriptions+1; n++ {
		if err = cs.Subscribe(ctx, &sdk.SubscribeParams{URI: fmt.Sprintf("items://%d/info.json", 1000+n)}); err != nil {
			break
		}
	}
	if err == nil || !strings.Contains(err.Error(), "unsubscribe") {
		t.Fatalf("subscription %d: err = %v, want a refusal past %d that says to unsubscribe", n+1, err, server.MaxSubscriptions)
	}
	if n != server.MaxSubscriptions {
		t.Errorf("refused after %d subscriptions, want %d", n, server.MaxSubscriptions)
	}
	// Subscribing again to one already held is no new subscription.
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: "items://1000/info.json"}); err != nil {
		t.Errorf("a repeated subscription: %v", err)
	}
	if err := cs.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: "items://1000/info.json"}); err != nil {
		t.Fatal(err)
	}
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: "watch://me"}); err != nil {
		t.Errorf("after an unsubscribe, a new subscription: %v", err)
	}
}

// resourceURIs lists the server's resources by URI.
func resourceURIs(t *testing.T, cs *sdk.ClientSession) []string {
	t.Helper()
	list, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
	}
	return uris
}
