package runtime

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
	"github.com/toolhost/toolhost/runtime/session"
)

// Options configure a Registry. Zero values are usable: no store means
// session state lives only in memory, no asker means every "ask" is refused
// with a message saying how to allow it.
type Options struct {
	Config     *config.Config
	Store      *session.Store
	Asker      permission.Asker
	Questioner Questioner
	Logger     *slog.Logger
	// DataDir holds saved full outputs (tool-output/). Default
	// $XDG_DATA_HOME/toolhost.
	DataDir string
	// Directory is the working directory; Worktree the project root.
	Directory string
	Worktree  string
}

// Registry holds every tool from every source and runs calls through the
// wrapper. It is safe for concurrent use.
type Registry struct {
	opts Options
	log  *slog.Logger

	mu    sync.RWMutex
	tools map[string]entry
	order []string
	hooks []Hook
}

type entry struct {
	tool   Tool
	source Source
}

// Call is one tool call as a front end receives it.
type Call struct {
	Tool      string
	Args      json.RawMessage
	SessionID string
	MessageID string
	CallID    string
	Agent     string // default: config default_agent, else "build"
	Model     string
	Extra     map[string]any
	// OnMetadata receives live progress from the tool.
	OnMetadata func(title string, meta map[string]any)
}

// Hook observes or changes every tool call, whatever its source.
type Hook interface {
	// BeforeExecute may change in.Args, or return an error to refuse the call.
	BeforeExecute(ctx context.Context, in *BeforeExecute) error
	// AfterExecute may change the result.
	AfterExecute(ctx context.Context, in *AfterExecute) error
}

// BeforeExecute is the input of the tool.execute.before hook.
type BeforeExecute struct {
	Tool      string
	SessionID string
	CallID    string
	Agent     string
	Args      json.RawMessage
}

// AfterExecute is the input of the tool.execute.after hook.
type AfterExecute struct {
	Tool      string
	SessionID string
	CallID    string
	Agent     string
	Args      json.RawMessage
	Result    *Result
	Err       error
}
