package server

import (
	"context"
	"regexp"
	"sort"
	"strings"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/runtime"
)

// How clients name toolhost's tools. An MCP client shows a server's tool
// under a name of its own: OpenCode as <server key>_<tool>, Claude Code as
// mcp__<server key>__<tool>. The model reads toolhost's descriptions,
// hints and errors and calls what they name, beside the client's own
// tools of the same names (OpenCode has a read tool too, whose reads
// toolhost never sees), so those texts must use the client's names.
//
// The server key is the user's choice in the client's config and reaches
// the server only when the client puts it in its name (Qwen Code), so the
// prefix is Options.ToolPrefix when set, else the known client's from the
// table in clients.go, for the key the client named or the key the setups
// in docs/mcp.md use ("toolhost"), else none.

// DefaultServerKey is the key the setups in docs/mcp.md register toolhost
// under in a client's config; the guessed prefixes assume it.
const DefaultServerKey = "toolhost"

// prefixFor is the tool-name prefix for a client that introduced itself as
// info: Options.ToolPrefix when set, else the known client's (clients.go),
// else none, said once in the log with the remedy.
func (s *Server) prefixFor(info *sdk.Implementation) string {
	if s.opts.ToolPrefix != nil {
		return *s.opts.ToolPrefix
	}
	if info == nil {
		return ""
	}
	prefix, known := clientPrefix(info.Name)
	if !known {
		s.unknownClient(info.Name)
	}
	return prefix
}

// front is what a call from a client that introduced itself as info is
// told about tool names, and whether the write tools insist on a read.
func (s *Server) front(info *sdk.Implementation) runtime.Front {
	return runtime.Front{ToolPrefix: s.prefixFor(info), SkipReadCheck: s.opts.SkipReadCheck}
}

// clientInfoOf is the client's self-description on a request, from the
// request's _meta (2026-07-28) or the session's initialize.
func clientInfoOf(req sdk.Request) *sdk.Implementation {
	if r, ok := req.(interface{ ClientInfo() *sdk.Implementation }); ok {
		return r.ClientInfo()
	}
	return nil
}

// nameToolsInLists is receiving middleware: a tools/list result reaches
// each client with the descriptions naming sibling tools as that client
// does. The go-sdk keeps one list for every session, so the rewriting
// happens on the way out, on copies.
func (s *Server) nameToolsInLists(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || method != "tools/list" {
			return res, err
		}
		list, ok := res.(*sdk.ListToolsResult)
		if !ok {
			return res, err
		}
		prefix := s.prefixFor(clientInfoOf(req))
		if prefix == "" {
			return res, nil
		}
		ids := make([]string, 0, len(list.Tools))
		for _, t := range list.Tools {
			ids = append(ids, t.Name)
		}
		namer := newToolNamer(ids, runtime.Front{ToolPrefix: prefix})
		out := *list
		out.Tools = make([]*sdk.Tool, len(list.Tools))
		for i, t := range list.Tools {
			c := *t
			c.Description = namer.rename(t.Description)
			out.Tools[i] = &c
		}
		return &out, nil
	}
}

// toolNamer rewrites the mentions of tools in a description to the names a
// client sees. Tool ids are ordinary words ("read", "edit", "list",
// "task"), so only mentions that are clearly of a tool are rewritten: an
// id, or ids joined by "and", "or" and commas, followed by "tool",
// "tools" or "instead of" ("the read tool", "the Glob and Grep tools",
// "edit and write instead of `sed`"), or following "use" ("use webfetch
// for a URL", "use grep and read for that"). Text in backticks is code
// (`grep`, `read` in a shell) and left alone.
type toolNamer struct {
	front  runtime.Front
	ids    map[string]string // lower-case id → id
	before *regexp.Regexp    // chain followed by tool(s) / instead of
	after  *regexp.Regexp    // use + chain
	id     *regexp.Regexp    // one id within a chain
}

func newToolNamer(ids []string, f runtime.Front) *toolNamer {
	n := &toolNamer{front: f, ids: map[string]string{}}
	var alts []string
	for _, id := range ids {
		if id == "" {
			continue
		}
		n.ids[strings.ToLower(id)] = id
		alts = append(alts, regexp.QuoteMeta(id))
	}
	if len(alts) == 0 {
		return n
	}
	// Longest first, so "todoread" is not read as "todo" + "read".
	sort.Slice(alts, func(i, j int) bool { return len(alts[i]) > len(alts[j]) })
	one := `(?:` + strings.Join(alts, "|") + `)`
	chain := one + `(?:(?:,\s*|,?\s+(?:and|or)\s+)` + one + `)*`
	n.id = regexp.MustCompile(`(?i)\b` + one + `\b`)
	n.before = regexp.MustCompile(`(?i)(^|[^\w` + "`" + `/.-])(` + chain + `)(\s+(?:tools?|instead\s+of)\b)`)
	n.after = regexp.MustCompile(`(\b[Uu]se\s+)(` + chain + `)([^\w` + "`" + `/.-]|$)`)
	return n
}

// rename returns text with its tool mentions in the client's names.
func (n *toolNamer) rename(text string) string {
	if n.front.ToolPrefix == "" || n.id == nil {
		return text
	}
	var b strings.Builder
	for i, part := range strings.Split(text, "`") {
		if i > 0 {
			b.WriteByte('`')
		}
		if i%2 == 1 { // inside backticks
			b.WriteString(part)
			continue
		}
		part = n.before.ReplaceAllStringFunc(part, func(m string) string {
			g := n.before.FindStringSubmatch(m)
			return g[1] + n.renameChain(g[2], true) + g[3]
		})
		part = n.after.ReplaceAllStringFunc(part, func(m string) string {
			g := n.after.FindStringSubmatch(m)
			return g[1] + n.renameChain(g[2], false) + g[3]
		})
		b.WriteString(part)
	}
	return b.String()
}

// renameChain renames each id in a chain ("Glob and Grep"); anyCase
// accepts "Grep" for grep, as descriptions capitalise tool names.
func (n *toolNamer) renameChain(chain string, anyCase bool) string {
	return n.id.ReplaceAllStringFunc(chain, func(w string) string {
		id, ok := n.ids[strings.ToLower(w)]
		if !ok || (!anyCase && w != id) {
			return w
		}
		return n.front.ToolName(id)
	})
}
