package builtins

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/toolhost/toolhost/internal/content/textfill"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// webSearchToolName is the websearch tool's id and the permission it asks
// (the pattern is the query).
const webSearchToolName = "websearch"

// Search endpoint limits and defaults.
const (
	// defaultSearchEndpoint is Exa's hosted MCP endpoint, used when
	// config.Search names none.
	defaultSearchEndpoint = "https://mcp.exa.ai/mcp"
	websearchTimeout      = 25 * time.Second
	websearchResults      = 8
	searchMaxResponse     = 10 << 20
)

//go:embed websearch.txt
var websearchDescriptionTemplate string

// webSearchParams are the websearch tool's arguments.
type webSearchParams struct {
	Query                string `json:"query" jsonschema:"description=Web search query"`
	NumResults           int    `json:"numResults,omitempty" jsonschema:"minimum=1,maximum=100,description=Number of search results to return (default 8)"`
	Livecrawl            string `json:"livecrawl,omitempty" jsonschema:"enum=fallback,enum=preferred,description=fallback: crawl live only when the index has no copy (default); preferred: crawl live first"`
	Type                 string `json:"type,omitempty" jsonschema:"enum=auto,enum=fast,enum=deep,description=auto (default) balanced; fast: quick results; deep: thorough search"`
	ContextMaxCharacters int    `json:"contextMaxCharacters,omitempty" jsonschema:"minimum=1,description=Maximum characters of page text returned (default 10000)"`
}

// WebSearch returns the websearch tool. It calls the web_search_exa tool
// of an Exa-compatible MCP endpoint (config.Search: endpoint, api_key or
// api_key_env) with one JSON-RPC tools/call request over HTTP, and returns
// the text of the answer, which may come as a plain JSON response or as
// Server-Sent Events (`data:` lines), as MCP's Streamable HTTP transport
// allows. The registry offers it only when config.Search is set. A call
// asks permission websearch for the query and times out after 25 seconds.
// Result metadata: query, numResults, type, livecrawl.
func WebSearch() runtime.Tool {
	return runtime.Declare(runtime.DefineDynamic(webSearchToolName,
		func(context.Context, runtime.InitContext) (string, error) {
			return textfill.Fill(websearchDescriptionTemplate, map[string]any{"Year": time.Now().Year(), "DefaultResults": websearchResults})
		},
		func(ctx context.Context, p webSearchParams, tc *runtime.Context) (runtime.Result, error) {
			if strings.TrimSpace(p.Query) == "" {
				return runtime.Result{}, errors.New("query is empty; say what to search for")
			}
			if p.NumResults <= 0 {
				p.NumResults = websearchResults
			}
			if p.Type == "" {
				p.Type = "auto"
			}
			if p.Livecrawl == "" {
				p.Livecrawl = "fallback"
			}
			meta := map[string]any{"query": p.Query, "numResults": p.NumResults, "type": p.Type, "livecrawl": p.Livecrawl}
			if err := tc.Ask(ctx, permission.Request{Permission: webSearchToolName, Patterns: []string{p.Query}, Always: []string{"*"}, Metadata: meta}); err != nil {
				return runtime.Result{}, err
			}
			args := map[string]any{"query": p.Query, "type": p.Type, "numResults": p.NumResults, "livecrawl": p.Livecrawl}
			if p.ContextMaxCharacters > 0 {
				args["contextMaxCharacters"] = p.ContextMaxCharacters
			}
			text, err := searchCall(ctx, tc.Config, "web_search_exa", args, websearchTimeout)
			if err != nil {
				return runtime.Result{}, fmt.Errorf("web search %q: %w", p.Query, err)
			}
			if text == "" {
				text = "No search results found. Please try a different query."
			}
			return runtime.Result{Title: "Web search: " + p.Query, Output: text, Metadata: meta}, nil
		}), webSearchTraits)
}

// webSearchTraits: asks "websearch" for the query itself; offered only with
// a search endpoint; reads the web.
var webSearchTraits = runtime.Traits{ChecksOwnPermission: true, Available: searchConfigured, Hints: &runtime.Hints{ReadOnly: true, OpenWorld: true}}

// searchConfigured is the availability of websearch and codesearch: they
// need a search endpoint.
func searchConfigured(env runtime.Env) error {
	if env.Config.Search == nil {
		return runtime.NotOffered("no search endpoint is configured", `a "search" section in the config`)
	}
	return nil
}

// searchCall calls one tool of the search MCP endpoint and returns the
// text of its first content item ("" when it returned none).
func searchCall(ctx context.Context, cfg *config.Config, tool string, args map[string]any, timeout time.Duration) (string, error) {
	if cfg == nil || cfg.Search == nil {
		return "", errors.New(`search is not configured; add "search": {"endpoint": ..., "api_key_env": ...} to the config`)
	}
	endpoint := cfg.Search.Endpoint
	if endpoint == "" {
		endpoint = defaultSearchEndpoint
	}
	key := cfg.Search.APIKey
	if key == "" && cfg.Search.APIKeyEnv != "" {
		key = os.Getenv(cfg.Search.APIKeyEnv)
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("search endpoint %q is not an http(s) URL; fix search.endpoint in the config", endpoint)
	}
	if key != "" {
		// Exa's hosted endpoint takes the key as a query parameter.
		q := u.Query()
		q.Set("exaApiKey", key)
		u.RawQuery = q.Encode()
	}
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      1,
		"method":  "tools/call",
		"params":  map[string]any{"name": tool, "arguments": args},
	})
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", fmt.Errorf("timed out after %s; try again, or a narrower query", timeout)
		}
		return "", fmt.Errorf("reach %s: %w", redactKey(u), err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, searchMaxResponse))
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", fmt.Errorf("timed out after %s while reading the answer; try again", timeout)
		}
		return "", fmt.Errorf("read answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("search endpoint answered %s: %s", resp.Status, strings.TrimSpace(string(data[:min(len(data), 300)])))
	}
	return searchText(data)
}

// searchText finds the JSON-RPC response in an answer — the body itself,
// or the `data:` lines of an event stream — and returns its first text.
func searchText(data []byte) (string, error) {
	var payloads [][]byte
	trimmed := bytes.TrimSpace(data)
	if bytes.HasPrefix(trimmed, []byte("{")) {
		payloads = append(payloads, trimmed)
	} else {
		for line := range strings.Lines(string(data)) {
			if rest, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data:"); ok {
				payloads = append(payloads, []byte(strings.TrimSpace(rest)))
			}
		}
	}
	for _, p := range payloads {
		var msg struct {
			Result *struct {
				Content []struct {
					Type string `json:"type"`
					Text string `json:"text"`
				} `json:"content"`
				IsError bool `json:"isError"`
			} `json:"result"`
			Error *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(p, &msg) != nil {
			continue // a keep-alive or a notification
		}
		if msg.Error != nil {
			return "", fmt.Errorf("search endpoint error %d: %s", msg.Error.Code, msg.Error.Message)
		}
		if msg.Result == nil {
			continue
		}
		for _, c := range msg.Result.Content {
			if c.Type == "text" || c.Type == "" {
				if msg.Result.IsError {
					return "", fmt.Errorf("search failed: %s", c.Text)
				}
				return c.Text, nil
			}
		}
		return "", nil
	}
	return "", nil
}

// redactKey hides the API key in URLs shown in errors.
func redactKey(u *url.URL) string {
	c := *u
	if q := c.Query(); q.Has("exaApiKey") {
		q.Set("exaApiKey", "REDACTED")
		c.RawQuery = q.Encode()
	}
	return c.String()
}
