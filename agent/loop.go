package agent

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	goruntime "runtime"
	"slices"
	"strings"
	"time"

	"github.com/toolhost/toolhost/internal/third_party/openai"
	"github.com/toolhost/toolhost/internal/third_party/openai/shared"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
	"github.com/toolhost/toolhost/runtime/session"
)

//go:embed system.txt
var systemTemplate string

//go:embed maxsteps.txt
var maxStepsPrompt string

// Options configure a Runner.
type Options struct {
	// Registry runs every tool call, through the full wrapper. Required.
	Registry *runtime.Registry
	// Store keeps transcripts (namespace TranscriptNamespace), so a session
	// can be continued by another process. Nil: a session.Memory of the
	// Runner's own, so transcripts live as long as the Runner.
	Store session.Store
	// Env reads environment variables (OPENAI_BASE_URL, OPENAI_API_KEY,
	// a provider's api_key_env). Default os.Getenv.
	Env func(string) string
	// HTTPClient talks to the model endpoint. Default: the client library's.
	HTTPClient *http.Client
	Logger     *slog.Logger
	// Directory and Worktree are shown to the model in the system prompt.
	Directory string
	Worktree  string
}

// Runner runs the agent loop: it sends a conversation and the agent's tools
// to a model, streams the answer, runs the tool calls the model makes
// through the registry, and repeats until the model stops calling tools.
// It is safe for concurrent use; each Run is independent.
type Runner struct {
	reg         *runtime.Registry
	env         func(string) string
	hc          *http.Client
	log         *slog.Logger
	dir, root   string
	transcripts *transcripts
}

// New returns a Runner.
func New(opts Options) *Runner {
	if opts.Env == nil {
		opts.Env = osGetenv
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Store == nil {
		opts.Store = session.NewMemory()
	}
	return &Runner{
		reg:         opts.Registry,
		env:         opts.Env,
		hc:          opts.HTTPClient,
		log:         opts.Logger,
		dir:         opts.Directory,
		root:        opts.Worktree,
		transcripts: &transcripts{store: opts.Store},
	}
}

// Request is one user turn.
type Request struct {
	Prompt string
	// SessionID continues a conversation; "" starts a new one.
	SessionID string
	// Agent is the agent's name; "" is the configured default.
	Agent string
	// Model is the model id; "" is the agent's model, else the config's.
	Model string
	// MaxSteps caps model calls in this turn; 0 is the agent's max_steps,
	// and when that is 0 too there is no cap. The last allowed step is sent
	// without tools and asked to summarise, so the turn ends in an answer.
	MaxSteps int
	// Events receives what happens, as it happens. May be nil.
	Events Sink

	// parentID, title and deny are set for subagent sessions.
	parentID string
	title    string
	deny     []string
}

// Result is how a turn ended.
type Result struct {
	SessionID string
	// Text is the model's final answer (its text in the last step).
	Text   string
	Reason string
	Steps  int
	Usage  Usage
}

// run is the state of one Run.
type run struct {
	*Runner
	req     Request
	sid     string
	agent   *runtime.Agent
	model   string // the id the registry and events see
	ep      Endpoint
	client  openai.Client
	tr      *Transcript
	emit    Sink
	offered map[string]bool
	tools   []openai.ChatCompletionToolUnionParam
	// toolsGen is the registry generation ru.tools was listed at: a tool
	// folder that changes while a long run goes on (toolhost run watches
	// them) is seen from the next step on.
	toolsGen uint64
	history  []string // tool+args of every call, for the doom-loop check
}

// Run runs one turn of a conversation: the prompt, then model steps and tool
// calls until the model answers without calling a tool, the step limit is
// reached, or a person rejects a permission request. Events are sent as
// they happen; the transcript is saved after every message. An error means
// the turn could not finish (the endpoint failed, ctx was cancelled); the
// transcript keeps everything up to that point.
func (r *Runner) Run(ctx context.Context, req Request) (Result, error) {
	if r.reg == nil {
		return Result{}, errors.New("agent runner: no registry")
	}
	if strings.TrimSpace(req.Prompt) == "" {
		return Result{}, errors.New("empty prompt; say what the agent should do")
	}
	ag, err := r.reg.Agent(req.Agent)
	if err != nil {
		return Result{}, err
	}
	model := req.Model
	if model == "" {
		model = ag.Model
	}
	if model == "" {
		model = r.reg.Config().Model
	}
	ep, err := ResolveEndpoint(r.reg.Config(), model, r.env)
	if err != nil {
		return Result{}, err
	}
	sid := req.SessionID
	if sid == "" {
		sid = runtime.NewID("ses")
	}
	user := req.Events
	if user == nil {
		user = func(Event) {}
	}
	emit := func(e Event) {
		user(e)
		r.publish(ctx, e)
	}
	ru := &run{Runner: r, req: req, sid: sid, agent: ag, model: model, ep: ep, client: ep.client(r.hc), emit: emit}
	res, err := ru.turn(ctx)
	res.SessionID = sid
	if err != nil {
		emit(Event{Type: EventError, SessionID: sid, Error: err.Error()})
		return res, err
	}
	emit(Event{Type: EventFinish, SessionID: sid, Reason: res.Reason, Steps: res.Steps, Usage: &res.Usage, Text: res.Text})
	return res, nil
}

func (ru *run) turn(ctx context.Context) (Result, error) {
	tr, err := ru.transcripts.load(ctx, ru.sid)
	if err != nil {
		return Result{}, err
	}
	ru.tr = tr
	if !tr.exists {
		t := ru.req.title
		if t == "" {
			t = title(ru.req.Prompt)
		}
		tr.Info = Info{ID: ru.sid, ParentID: ru.req.parentID, Agent: ru.agent.Name, Title: t, Created: nowMS()}
		if err := ru.transcripts.put(ctx, ru.sid, keyInfo, tr.Info); err != nil {
			return Result{}, err
		}
		ru.publishCreated(ctx, tr.Info)
	}
	if err := ru.closeInterrupted(ctx); err != nil {
		return Result{}, err
	}
	for _, m := range tr.Messages {
		for _, c := range m.ToolCalls {
			ru.history = append(ru.history, callKey(c.Name, c.Arguments))
		}
	}
	if err := ru.resolveTools(ctx); err != nil {
		return Result{}, err
	}
	user := Message{ID: runtime.NewID("msg"), Role: RoleUser, Text: ru.req.Prompt, Agent: ru.agent.Name, Model: ru.model, Time: nowMS()}
	if err := ru.transcripts.appendMessage(ctx, ru.sid, tr, user); err != nil {
		return Result{}, err
	}
	ru.publishText(ctx, user)

	maxSteps := ru.req.MaxSteps
	if maxSteps <= 0 {
		maxSteps = ru.agent.MaxSteps
	}
	if maxSteps <= 0 {
		maxSteps = math.MaxInt
	}
	var res Result
	for step := 1; ; step++ {
		last := step >= maxSteps
		out, err := ru.step(ctx, step, last)
		res.Steps = step
		res.Usage.add(out.usage)
		if err != nil {
			return res, err
		}
		res.Text = out.text
		switch {
		case out.rejected:
			res.Reason = ReasonRejected
			return res, nil
		case len(out.calls) == 0 && out.finish == "length":
			res.Reason = ReasonLength
			return res, nil
		case last:
			res.Reason = ReasonMaxSteps
			return res, nil
		case len(out.calls) == 0:
			res.Reason = ReasonStop
			return res, nil
		}
	}
}

// closeInterrupted answers calls of an earlier turn that never got a result
// (the process was killed mid-call): the endpoint refuses a conversation
// with unanswered calls, and the model should know they did not run.
func (ru *run) closeInterrupted(ctx context.Context) error {
	answered := map[string]bool{}
	for _, m := range ru.tr.Messages {
		if m.Role == RoleTool {
			answered[m.CallID] = true
		}
	}
	for _, m := range slices.Clone(ru.tr.Messages) {
		for _, c := range m.ToolCalls {
			if answered[c.ID] {
				continue
			}
			msg := Message{ID: runtime.NewID("msg"), Role: RoleTool, CallID: c.ID, Text: "Error: the tool call was interrupted before it finished; it may or may not have taken effect.", Time: nowMS()}
			if err := ru.transcripts.appendMessage(ctx, ru.sid, ru.tr, msg); err != nil {
				return err
			}
			if s, ok := ru.tr.Tools[c.ID]; ok && s.Status == StateRunning {
				s.Status, s.Error, s.Time.End = StateError, "interrupted", nowMS()
				if err := ru.transcripts.putTool(ctx, ru.sid, s); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// resolveTools takes the agent's tools from the registry (model, config and
// permission filters applied there), hides those the session denies, and
// converts them to function tools with the provider's schema transform.
func (ru *run) resolveTools(ctx context.Context) error {
	gen := ru.reg.Generation()
	infos, err := ru.reg.Tools(ctx, ru.model, ru.agent.Name)
	if err != nil {
		return err
	}
	ru.offered = map[string]bool{}
	ru.tools = nil
	for _, t := range infos {
		if slices.Contains(ru.req.deny, t.ID) {
			continue
		}
		ru.offered[t.ID] = true
		var params map[string]any
		if err := jsonUnmarshal(TransformSchema(ru.model, ru.ep.Strict, t.Parameters), &params); err != nil {
			return fmt.Errorf("tool %s: parameters are not a JSON object: %w", t.ID, err)
		}
		fn := shared.FunctionDefinitionParam{
			Name:        t.ID,
			Description: openai.String(t.Description),
			Parameters:  params,
		}
		if ru.ep.Strict {
			fn.Strict = openai.Bool(true)
		}
		ru.tools = append(ru.tools, openai.ChatCompletionFunctionTool(fn))
	}
	ru.toolsGen = gen
	return nil
}

// stepOutcome is what one model call produced.
type stepOutcome struct {
	text     string
	calls    []ToolCall
	finish   string
	usage    Usage
	rejected bool
}

func (ru *run) step(ctx context.Context, step int, last bool) (stepOutcome, error) {
	if ru.reg.Generation() != ru.toolsGen {
		if err := ru.resolveTools(ctx); err != nil {
			return stepOutcome{}, err
		}
	}
	params := openai.ChatCompletionNewParams{
		Model:         shared.ChatModel(ru.ep.Model),
		Messages:      ru.messages(last),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	if !last && len(ru.tools) > 0 {
		params.Tools = ru.tools
	}
	if ac, ok := ru.reg.Config().Agent[ru.agent.Name]; ok && ac.Temperature != nil {
		params.Temperature = openai.Float(*ac.Temperature)
	}
	out, err := ru.stream(ctx, step, params)
	if err != nil {
		return out, err
	}
	msg := Message{ID: runtime.NewID("msg"), Role: RoleAssistant, Text: out.text, ToolCalls: out.calls, Agent: ru.agent.Name, Model: ru.model, Time: nowMS()}
	if err := ru.transcripts.appendMessage(ctx, ru.sid, ru.tr, msg); err != nil {
		return out, err
	}
	ru.publishText(ctx, msg)
	ru.emit(Event{Type: EventStepFinish, SessionID: ru.sid, Step: step, Reason: out.finish, Usage: &out.usage})
	if len(out.calls) == 0 {
		return out, nil
	}
	if last {
		// Tools were not offered, yet the model called some: answer them so
		// the conversation stays valid, without running them.
		for _, c := range out.calls {
			m := Message{ID: runtime.NewID("msg"), Role: RoleTool, CallID: c.ID, Text: "Error: not run; the step limit was reached and tools are disabled until the user writes again.", Time: nowMS()}
			if err := ru.transcripts.appendMessage(ctx, ru.sid, ru.tr, m); err != nil {
				return out, err
			}
		}
		return out, nil
	}
	outcomes := ru.execute(ctx, step, msg.ID, out.calls)
	var images []runtime.Attachment
	for i, o := range outcomes {
		m := Message{ID: runtime.NewID("msg"), Role: RoleTool, CallID: out.calls[i].ID, Text: o.content, Time: nowMS()}
		if err := ru.transcripts.appendMessage(ctx, ru.sid, ru.tr, m); err != nil {
			return out, err
		}
		images = append(images, o.images...)
		out.rejected = out.rejected || o.rejected
	}
	if len(images) > 0 {
		m := Message{ID: runtime.NewID("msg"), Role: RoleUser, Text: "The tool results above came with these attachments.", Attachments: images, Time: nowMS()}
		if err := ru.transcripts.appendMessage(ctx, ru.sid, ru.tr, m); err != nil {
			return out, err
		}
	}
	if err := ctx.Err(); err != nil {
		return out, err
	}
	return out, nil
}

// stream makes one model call and streams its answer.
func (ru *run) stream(ctx context.Context, step int, params openai.ChatCompletionNewParams) (stepOutcome, error) {
	var out stepOutcome
	s := ru.client.Chat.Completions.NewStreaming(ctx, params)
	defer s.Close()
	var acc openai.ChatCompletionAccumulator
	for s.Next() {
		chunk := s.Current()
		if !acc.AddChunk(chunk) {
			ru.log.Warn("model stream chunk did not fit the ones before it; ignored", "session", ru.sid, "chunk", chunk.RawJSON())
			continue
		}
		for _, c := range chunk.Choices {
			if c.Index == 0 && c.Delta.Content != "" {
				ru.emit(Event{Type: EventText, SessionID: ru.sid, Step: step, Text: c.Delta.Content})
			}
		}
	}
	if err := s.Err(); err != nil {
		return out, endpointError(ru.ep, err)
	}
	out.usage = Usage{Input: acc.Usage.PromptTokens, Output: acc.Usage.CompletionTokens, Total: acc.Usage.TotalTokens}
	if len(acc.Choices) == 0 {
		return out, fmt.Errorf("model %s answered with no choices; check that the endpoint %s serves Chat Completions", ru.ep.Model, ru.baseURL())
	}
	choice := acc.Choices[0]
	out.text, out.finish = choice.Message.Content, choice.FinishReason
	for i, tc := range choice.Message.ToolCalls {
		if tc.Function.Name == "" {
			continue
		}
		id := tc.ID
		if id == "" {
			// Some local servers send no ids; the conversation needs them.
			id = fmt.Sprintf("call_%d_%d", step, i)
		}
		out.calls = append(out.calls, ToolCall{ID: id, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return out, nil
}

func (ru *run) baseURL() string {
	if ru.ep.BaseURL == "" {
		return "(default)"
	}
	return ru.ep.BaseURL
}

// endpointError adds a remedy to the failures a user can fix.
func endpointError(ep Endpoint, err error) error {
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return fmt.Errorf("call model %s at %s: %w; check that the server is running and base_url (or %s) points at it", ep.Model, orDefault(ep.BaseURL), err, EnvBaseURL)
	}
	// The library's message is only the status line; the endpoint's own
	// explanation is in Message.
	if apiErr.Message != "" {
		err = fmt.Errorf("%w: %s", err, apiErr.Message)
	}
	msg := strings.ToLower(apiErr.Message + " " + apiErr.Code)
	switch {
	case apiErr.StatusCode == http.StatusUnauthorized || apiErr.StatusCode == http.StatusForbidden:
		return fmt.Errorf("call model %s: %w; check the API key (the provider's api_key or api_key_env, or %s)", ep.Model, err, EnvAPIKey)
	case apiErr.StatusCode == http.StatusNotFound:
		return fmt.Errorf("call model %s at %s: %w; check the model id and that base_url ends in the API root (often /v1)", ep.Model, orDefault(ep.BaseURL), err)
	case strings.Contains(msg, "context") && (strings.Contains(msg, "length") || strings.Contains(msg, "window") || strings.Contains(msg, "too long")):
		return fmt.Errorf("call model %s: %w; the conversation no longer fits the model's context: start a new session (without --session) or use a model with a larger context", ep.Model, err)
	}
	return fmt.Errorf("call model %s: %w", ep.Model, err)
}

func orDefault(s string) string {
	if s == "" {
		return "the default endpoint"
	}
	return s
}

// messages converts the transcript to the Chat Completions messages.
func (ru *run) messages(last bool) []openai.ChatCompletionMessageParamUnion {
	out := []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(ru.systemPrompt())}
	msgs := ru.tr.Messages
	if last {
		// The step limit's prompt goes through the same transforms (a
		// Mistral model must not see it right after a tool message).
		msgs = append(slices.Clip(msgs), Message{Role: RoleUser, Text: maxStepsPrompt})
	}
	for _, m := range normalizeMessages(msgs, ModelFamily(ru.model)) {
		switch m.Role {
		case RoleUser:
			if len(m.Attachments) == 0 {
				out = append(out, openai.UserMessage(m.Text))
				continue
			}
			parts := []openai.ChatCompletionContentPartUnionParam{openai.TextContentPart(m.Text)}
			for _, a := range m.Attachments {
				parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: a.URL}))
			}
			out = append(out, openai.UserMessage(parts))
		case RoleAssistant:
			a := openai.ChatCompletionAssistantMessageParam{}
			if m.Text != "" || len(m.ToolCalls) == 0 {
				a.Content.OfString = openai.String(m.Text)
			}
			for _, c := range m.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       c.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: c.Arguments},
					},
				})
			}
			out = append(out, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case RoleTool:
			out = append(out, openai.ToolMessage(m.Text, m.CallID))
		}
	}
	return out
}

func (ru *run) systemPrompt() string {
	base := systemTemplate
	if ru.agent.Prompt != "" {
		base = ru.agent.Prompt + "\n\nWorking directory: {{directory}}\nProject root: {{worktree}}\nToday's date: {{date}}\n"
	}
	return strings.NewReplacer(
		"{{agent}}", "the "+ru.agent.Name+" agent",
		"{{directory}}", ru.dir,
		"{{worktree}}", ru.root,
		"{{platform}}", goruntime.GOOS,
		"{{date}}", time.Now().Format("Mon Jan 2 2006"),
	).Replace(base)
}

// title is a session's title: the first line of its first prompt.
func title(prompt string) string {
	s := strings.TrimSpace(prompt)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if r := []rune(s); len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return s
}

// errorKind names why a call failed, for events.
func errorKind(err error) string {
	if k := permission.Kind(err); k != "" {
		return string(k)
	}
	var ve *runtime.ValidationError
	if errors.As(err, &ve) {
		return "validation"
	}
	var ue *runtime.UnavailableError
	if errors.As(err, &ue) {
		return "unavailable"
	}
	return "tool"
}
