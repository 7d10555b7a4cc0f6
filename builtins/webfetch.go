package builtins

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

//go:embed webfetch.txt
var webfetchDescription string

// WebFetch limits.
const (
	webfetchMaxBytes       = 5 << 20
	webfetchDefaultTimeout = 30 * time.Second
	webfetchMaxTimeout     = 120 * time.Second
)

// webFetchParams are the webfetch tool's arguments.
type webFetchParams struct {
	URL     string  `json:"url" jsonschema:"description=The URL to fetch content from"`
	Format  string  `json:"format,omitempty" jsonschema:"enum=text,enum=markdown,enum=html,default=markdown,description=The format to return the content in (text, markdown, or html). Defaults to markdown."`
	Timeout float64 `json:"timeout,omitempty" jsonschema:"description=Optional timeout in seconds (max 120)"`
}

// WebFetch returns the webfetch tool: an HTTP(S) GET whose HTML body is
// returned as markdown (html-to-markdown v2, a maintained CommonMark
// converter), plain text (x/net/html's tokenizer, dropping scripts and
// styles) or as is; images come back as attachments.
func WebFetch() runtime.Tool {
	return webFetchWithClient(http.DefaultClient)
}

// webFetchWithClient is WebFetch using client, for hosts with a proxy or
// custom transport (and tests). The client's own Timeout should be zero:
// the tool applies the call's timeout.
func webFetchWithClient(client *http.Client) runtime.Tool {
	return runtime.Declare(runtime.Define("webfetch", webfetchDescription, func(ctx context.Context, p webFetchParams, tc *runtime.Context) (runtime.Result, error) {
		return runWebFetch(ctx, client, p, tc)
	}), webfetchTraits)
}

// webfetchTraits: asks "webfetch" for the URL itself; reads the web.
var webfetchTraits = runtime.Traits{ChecksOwnPermission: true, Hints: &runtime.Hints{ReadOnly: true, OpenWorld: true}}

func runWebFetch(ctx context.Context, client *http.Client, p webFetchParams, tc *runtime.Context) (runtime.Result, error) {
	u, err := url.Parse(p.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return runtime.Result{}, fmt.Errorf("invalid url %q: the URL must start with http:// or https://", p.URL)
	}
	format := p.Format
	if format == "" {
		format = "markdown"
	}
	accept, ok := webfetchAccept[format]
	if !ok {
		return runtime.Result{}, fmt.Errorf("invalid format %q: use text, markdown or html", p.Format)
	}
	if err := tc.Ask(ctx, permission.Request{
		Permission: "webfetch",
		Patterns:   []string{p.URL},
		Always:     []string{"*"},
		Metadata:   map[string]any{"url": p.URL, "format": format, "timeout": p.Timeout},
	}); err != nil {
		return runtime.Result{}, err
	}

	timeout := webfetchDefaultTimeout
	if p.Timeout > 0 {
		timeout = min(time.Duration(p.Timeout*float64(time.Second)), webfetchMaxTimeout)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	resp, err := webfetchGet(ctx, client, p.URL, accept, webfetchBrowserUA)
	if err == nil && resp.StatusCode == http.StatusForbidden && resp.Header.Get("cf-mitigated") == "challenge" {
		// Bot protection rejects a browser User-Agent whose TLS fingerprint
		// is not a browser's; an honest one often passes.
		resp.Body.Close()
		resp, err = webfetchGet(ctx, client, p.URL, accept, "toolhost")
	}
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return runtime.Result{}, fmt.Errorf("fetch %s: timed out after %s; retry with a larger timeout (max 120 seconds)", p.URL, timeout)
		}
		return runtime.Result{}, fmt.Errorf("fetch %s: %w", p.URL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return runtime.Result{}, fmt.Errorf("fetch %s: request failed with status code: %d", p.URL, resp.StatusCode)
	}
	if resp.ContentLength > webfetchMaxBytes {
		return runtime.Result{}, fmt.Errorf("fetch %s: response too large (%d bytes, exceeds 5MB limit)", p.URL, resp.ContentLength)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, webfetchMaxBytes+1))
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return runtime.Result{}, fmt.Errorf("fetch %s: timed out after %s while reading the body; retry with a larger timeout (max 120 seconds)", p.URL, timeout)
		}
		return runtime.Result{}, fmt.Errorf("fetch %s: read body: %w", p.URL, err)
	}
	if len(body) > webfetchMaxBytes {
		return runtime.Result{}, fmt.Errorf("fetch %s: response too large (exceeds 5MB limit)", p.URL)
	}

	contentType := resp.Header.Get("Content-Type")
	mediaType, _, _ := mime.ParseMediaType(contentType)
	title := fmt.Sprintf("%s (%s)", p.URL, contentType)
	meta := map[string]any{"statusCode": resp.StatusCode, "contentType": contentType, "responseSize": len(body)}

	if strings.HasPrefix(mediaType, "image/") && mediaType != "image/svg+xml" {
		return runtime.Result{
			Title:    title,
			Output:   "Image fetched successfully",
			Metadata: meta,
			Attachments: []runtime.Attachment{{
				MIME: mediaType,
				URL:  "data:" + mediaType + ";base64," + base64.StdEncoding.EncodeToString(body),
			}},
		}, nil
	}

	output := string(body)
	isHTML := mediaType == "text/html" || mediaType == "application/xhtml+xml"
	switch {
	case isHTML && format == "markdown":
		md, err := htmltomarkdown.ConvertString(output)
		if err != nil {
			return runtime.Result{}, fmt.Errorf("fetch %s: convert HTML to markdown: %w; retry with format \"html\" or \"text\"", p.URL, err)
		}
		output = md
	case isHTML && format == "text":
		output = htmlToText(body)
	}
	return runtime.Result{Title: title, Output: output, Metadata: meta}, nil
}

// webfetchBrowserUA is sent first: many sites serve bots a stub page.
const webfetchBrowserUA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36"

// webfetchAccept asks for the requested format first, with fallbacks.
var webfetchAccept = map[string]string{
	"markdown": "text/markdown;q=1.0, text/x-markdown;q=0.9, text/plain;q=0.8, text/html;q=0.7, */*;q=0.1",
	"text":     "text/plain;q=1.0, text/markdown;q=0.9, text/html;q=0.8, */*;q=0.1",
	"html":     "text/html;q=1.0, application/xhtml+xml;q=0.9, text/plain;q=0.8, text/markdown;q=0.7, */*;q=0.1",
}

func webfetchGet(ctx context.Context, client *http.Client, rawURL, accept, userAgent string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", accept)
	req.Header.Set("Accept-Language", "en-US,en;q=0.9")
	return client.Do(req)
}

// htmlSkipped are elements whose content is not text a reader sees.
var htmlSkipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Iframe: true,
	atom.Object: true, atom.Embed: true, atom.Template: true, atom.Svg: true, atom.Head: true,
}

// htmlBlocks end a line of text.
var htmlBlocks = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Br: true, atom.Li: true, atom.Tr: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Section: true, atom.Article: true, atom.Header: true, atom.Footer: true,
	atom.Pre: true, atom.Blockquote: true, atom.Table: true, atom.Ul: true, atom.Ol: true, atom.Title: true,
}

var htmlBlankLines = regexp.MustCompile(`\n[ \t]*(\n[ \t]*)+`)

// htmlToText returns the visible text of an HTML document: text outside
// script, style and similar elements, a line break after block elements,
// runs of blank lines collapsed.
func htmlToText(doc []byte) string {
	z := html.NewTokenizer(bytes.NewReader(doc))
	var b strings.Builder
	skip := 0 // depth inside skipped elements
	for {
		switch z.Next() {
		case html.ErrorToken:
			text := htmlBlankLines.ReplaceAllString(b.String(), "\n\n")
			return strings.TrimSpace(text)
		case html.StartTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if htmlSkipped[a] {
				skip++
			} else if a == atom.Br && skip == 0 {
				b.WriteByte('\n')
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if htmlSkipped[a] {
				skip = max(0, skip-1)
			} else if htmlBlocks[a] && skip == 0 {
				b.WriteByte('\n')
			}
		case html.TextToken:
			if skip == 0 {
				b.Write(z.Text())
			}
		}
	}
}
