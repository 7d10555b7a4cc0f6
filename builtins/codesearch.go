package builtins

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// codeSearchToolName is the codesearch tool's id and the permission it
// asks (the pattern is the query).
const codeSearchToolName = "codesearch"

// Code search limits: tokensNum bounds, as the endpoint accepts them.
const (
	codesearchMinTokens     = 1000
	codesearchMaxTokens     = 50000
	codesearchDefaultTokens = 5000
	codesearchTimeout       = 30 * time.Second
)

//go:embed codesearch.txt
var codesearchDescriptionTemplate string

var codesearchDescription = sync.OnceValue(func() string {
	return renderDescription("codesearch", codesearchDescriptionTemplate, map[string]any{
		"MinTokens": codesearchMinTokens, "MaxTokens": codesearchMaxTokens, "DefaultTokens": codesearchDefaultTokens,
	})
})

// codeSearchParams are the codesearch tool's arguments.
type codeSearchParams struct {
	Query     string `json:"query" jsonschema:"description=Search query for APIs\\, libraries and SDKs: 'React useState hook examples'\\, 'Go context cancellation'"`
	TokensNum int    `json:"tokensNum,omitempty" jsonschema:"minimum=1000,maximum=50000,default=5000,description=How much context to return (1000-50000 tokens; default 5000)"`
}

// CodeSearch returns the codesearch tool: the get_code_context_exa tool
// of the same Exa-compatible MCP endpoint as WebSearch, for code snippets
// and documentation. tokensNum is kept within 1000–50000 (default 5000). A
// call asks permission codesearch for the query and times out after 30
// seconds. Result metadata: query, tokensNum.
func CodeSearch() runtime.Tool {
	return runtime.Declare(runtime.DefineDynamic(codeSearchToolName, described(codesearchDescription), func(ctx context.Context, p codeSearchParams, tc *runtime.Context) (runtime.Result, error) {
		if strings.TrimSpace(p.Query) == "" {
			return runtime.Result{}, errors.New("query is empty; name the library or API and what you want to know")
		}
		if p.TokensNum == 0 {
			p.TokensNum = codesearchDefaultTokens
		}
		p.TokensNum = max(codesearchMinTokens, min(codesearchMaxTokens, p.TokensNum))
		meta := map[string]any{"query": p.Query, "tokensNum": p.TokensNum}
		if err := tc.Ask(ctx, permission.Request{Permission: codeSearchToolName, Patterns: []string{p.Query}, Always: []string{"*"}, Metadata: meta}); err != nil {
			return runtime.Result{}, err
		}
		text, err := searchCall(ctx, tc.Config, "get_code_context_exa", map[string]any{"query": p.Query, "tokensNum": p.TokensNum}, codesearchTimeout)
		if err != nil {
			return runtime.Result{}, fmt.Errorf("code search %q: %w", p.Query, err)
		}
		if text == "" {
			text = "No code snippets or documentation found. Try a different query, be more specific about the library or concept, or check the spelling of framework names."
		}
		return runtime.Result{Title: "Code search: " + p.Query, Output: text, Metadata: meta}, nil
	}), codeSearchTraits)
}

// codeSearchTraits: asks "codesearch" for the query itself; offered only
// with a search endpoint; reads the web.
var codeSearchTraits = runtime.Traits{ChecksOwnPermission: true, Available: searchConfigured, Hints: &runtime.Hints{ReadOnly: true, OpenWorld: true}}
