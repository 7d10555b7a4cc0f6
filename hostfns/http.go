package hostfns

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"strings"
	"syscall"
	"time"
)

// NameFetch is http_request as JS and Python tools call it (fetch,
// toolhost.fetch): the same Call.fetch, with bodies in base64 JSON.
const NameFetch = "fetch"

// fetch is the HTTP host function of every guest: req under the call's
// HTTPPolicy (allowed_hosts, the address dialled, redirects, the response
// cap), bounded by the script time left (Remaining) besides the call's
// context, with one refusal text and one warning in the host's log for
// every kind of guest. The engines only adapt its wire: http_request
// (wasm) and the fetch op (scripts).
func (c *Call) fetch(ctx context.Context, req HTTPRequest, body []byte) (int, http.Header, []byte, error) {
	p := c.HTTP
	if p.ConfigKey == "" {
		p.ConfigKey = c.configKey()
	}
	if c.Remaining != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Remaining())
		defer cancel()
	}
	var rd io.Reader
	if len(body) > 0 {
		rd = bytes.NewReader(body)
	}
	status, hdr, out, err := p.DoHeaders(ctx, req, rd)
	if errors.Is(err, ErrHostNotAllowed) {
		// The refusal quotes the host the guest chose, which the URL may
		// spell with percent escapes of any character: escaped as the
		// guest's own log lines are.
		c.logger().WarnContext(ctx, "guest HTTP request refused", append(c.logAttrs(), slog.String("err", CleanLogMessage(err.Error())))...)
	}
	return status, hdr, out, err
}

// configKey is where the tool's grants are configured, for refusals.
func (c *Call) configKey() string {
	if c.ConfigKey != "" {
		return c.ConfigKey
	}
	return "wasm." + c.Tool
}

// httpRequest replaces Extism's http_request with Call.fetch, which
// reaches only the tool's allowed hosts and never a loopback, private,
// link-local or otherwise internal address unless that address is itself
// allowed. The address check runs on the address actually dialled
// (net.Dialer.Control), after DNS resolution, so a name that resolves — or
// later re-resolves — to 127.0.0.1 cannot get around it; redirects are
// checked the same way.
//
//	(import "extism:host/env" "http_request" (func (param i64 i64) (result i64)))
//
// Parameters: offset of a block holding {"url", "method", "headers"} JSON
// (Extism's HttpRequest), and offset of the body block or 0.
// Result: offset of the response body block, or 0 when it is empty; the
// status is then read with Extism's http_status_code. A refused or failed
// request aborts the call with an error naming the host and how to allow
// it, as Extism's own does.
func httpRequest(ctx context.Context, stack []uint64) {
	c := callOf(ctx, NameHTTPRequest)
	c.mu.Lock()
	c.httpStatus = 0
	c.mu.Unlock()
	raw := readArg(c, NameHTTPRequest, stack)
	c.Memory.Free(stack[0])
	var req HTTPRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		fail(c, NameHTTPRequest, fmt.Errorf("request is not JSON: %w", err))
	}
	var body []byte
	if stack[1] != 0 {
		body = readBlock(c, NameHTTPRequest, stack[1], "body")
		c.Memory.Free(stack[1])
	}
	status, _, respBody, err := c.fetch(ctx, req, body)
	c.mu.Lock()
	c.httpStatus = status
	c.mu.Unlock()
	if err != nil {
		fail(c, NameHTTPRequest, err)
	}
	reply(c, NameHTTPRequest, stack, nonEmpty(respBody))
}

// FetchRequest is the JSON a script tool passes to fetch: Extism's
// HttpRequest and the body, base64.
type FetchRequest struct {
	HTTPRequest
	Body string `json:"body"`
}

// FetchReply is what fetch returns to a script tool: the status, the
// headers (lower-case names, values joined with ", ") and the body,
// base64.
type FetchReply struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}

// runFetch is fetch: Call.fetch in the shape of the script tools' host
// channel. A refusal or failure is returned as the error, which the
// script gets thrown.
func runFetch(ctx context.Context, c *Call, raw []byte) (any, error) {
	var req FetchRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, fmt.Errorf("request is not {url, method, headers, body} JSON: %w", err)
	}
	body, err := base64.StdEncoding.DecodeString(req.Body)
	if err != nil {
		return nil, fmt.Errorf("body is not base64: %w", err)
	}
	status, hdr, out, err := c.fetch(ctx, req.HTTPRequest, body)
	if err != nil {
		return nil, err
	}
	headers := make(map[string]string, len(hdr))
	for k, v := range hdr {
		headers[strings.ToLower(k)] = strings.Join(v, ", ")
	}
	return FetchReply{Status: status, Headers: headers, Body: base64.StdEncoding.EncodeToString(out)}, nil
}

// httpStatusCode returns the status of the call's last http_request.
//
//	(import "extism:host/env" "http_status_code" (func (result i32)))
//
// Result: the HTTP status, or 0 before any request.
func httpStatusCode(ctx context.Context, stack []uint64) {
	c := callOf(ctx, NameHTTPStatusCode)
	c.mu.Lock()
	defer c.mu.Unlock()
	stack[0] = uint64(uint32(c.httpStatus))
}

// httpHeaders would return the last response's headers; toolhost does not
// keep them, as Extism does not by default.
//
//	(import "extism:host/env" "http_headers" (func (result i64)))
//
// Result: always 0 (no headers).
func httpHeaders(ctx context.Context, stack []uint64) {
	callOf(ctx, NameHTTPHeaders)
	stack[0] = 0
}

// HTTPRequest is the JSON a guest passes to http_request (Extism's
// HttpRequest).
type HTTPRequest struct {
	URL     string            `json:"url"`
	Method  string            `json:"method"`
	Headers map[string]string `json:"headers"`
}

func nonEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

// HTTPPolicy is what a tool may reach over HTTP.
type HTTPPolicy struct {
	// AllowedHosts are host names, globs ("*.example.com") or IP addresses.
	AllowedHosts []string
	// MaxResponse caps a response body, in bytes.
	MaxResponse int64
	// ConfigKey names the setting that grants hosts, for error messages.
	ConfigKey string
}

// ErrHostNotAllowed is wrapped by every refusal of HTTPPolicy.
var ErrHostNotAllowed = errors.New("host not allowed")

func (p HTTPPolicy) hostAllowed(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, pat := range p.AllowedHosts {
		pat = strings.ToLower(pat)
		if pat == host || pat == "*" {
			return true
		}
		if ok, _ := path.Match(pat, host); ok {
			return true
		}
	}
	return false
}

// addrAllowed reports whether ip may be dialled: public addresses of an
// allowed host always; internal ones only when listed themselves.
func (p HTTPPolicy) addrAllowed(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !isInternal(ip) {
		return true
	}
	for _, pat := range p.AllowedHosts {
		if a, err := netip.ParseAddr(strings.Trim(pat, "[]")); err == nil && a.Unmap() == ip {
			return true
		}
	}
	return false
}

// isInternal reports whether ip is an address of this machine or its
// networks rather than of the internet. An IPv6 address that carries an
// IPv4 one to a translator — NAT64 (64:ff9b::/96, 64:ff9b:1::/48) and
// 6to4 (2002::/16) — is judged by the IPv4 address it leads to; the
// deprecated site-local range fec0::/10 is internal.
func isInternal(ip netip.Addr) bool {
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsUnspecified() || ip.IsMulticast() || ip.IsInterfaceLocalMulticast() ||
		cgnat.Contains(ip) || ip == metadataV4 || siteLocal.Contains(ip) {
		return true
	}
	if !ip.Is6() {
		return false
	}
	b := ip.As16()
	switch {
	case nat64.Contains(ip) || nat64Local.Contains(ip):
		return isInternal(netip.AddrFrom4([4]byte(b[12:16])))
	case sixToFour.Contains(ip):
		return isInternal(netip.AddrFrom4([4]byte(b[2:6])))
	}
	return false
}

var (
	cgnat      = netip.MustParsePrefix("100.64.0.0/10")
	metadataV4 = netip.MustParseAddr("169.254.169.254")
	siteLocal  = netip.MustParsePrefix("fec0::/10")
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour  = netip.MustParsePrefix("2002::/16")
)

func (p HTTPPolicy) refuse(what string) error {
	key := p.ConfigKey
	if key == "" {
		key = "wasm.<tool>"
	}
	return fmt.Errorf("%w: %s; add it to %s.allowed_hosts in the config to allow it", ErrHostNotAllowed, what, key)
}

func (p HTTPPolicy) checkURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("only http and https URLs are supported, not %q", u.Scheme)
	}
	if !p.hostAllowed(u.Hostname()) {
		return p.refuse(fmt.Sprintf("HTTP request to %s is not allowed", u.Hostname()))
	}
	return nil
}

// Do performs req under the policy and returns the status and body.
func (p HTTPPolicy) Do(ctx context.Context, req HTTPRequest, body io.Reader) (int, []byte, error) {
	status, _, b, err := p.DoHeaders(ctx, req, body)
	return status, b, err
}

// DoHeaders is Do that also returns the response's headers.
func (p HTTPPolicy) DoHeaders(ctx context.Context, req HTTPRequest, body io.Reader) (int, http.Header, []byte, error) {
	u, err := url.Parse(req.URL)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("invalid url %q: %w", req.URL, err)
	}
	if err := p.checkURL(u); err != nil {
		return 0, nil, nil, err
	}
	method := strings.ToUpper(req.Method)
	if method == "" {
		method = http.MethodGet
	}
	hr, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return 0, nil, nil, err
	}
	for k, v := range req.Headers {
		hr.Header.Set(k, v)
	}
	dialer := &net.Dialer{Timeout: 30 * time.Second, Control: func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("dial %s: %w", address, err)
		}
		if !p.addrAllowed(ap.Addr()) {
			return p.refuse(fmt.Sprintf("%s resolves to the internal address %s", u.Hostname(), ap.Addr()))
		}
		return nil
	}}
	client := &http.Client{
		Transport: &http.Transport{DialContext: dialer.DialContext, DisableKeepAlives: true, TLSHandshakeTimeout: 30 * time.Second},
		CheckRedirect: func(r *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			return p.checkURL(r.URL)
		},
	}
	resp, err := client.Do(hr)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("HTTP %s %s: %w", method, u.Redacted(), err)
	}
	defer resp.Body.Close()
	max := p.MaxResponse
	if max <= 0 {
		max = 50 << 20
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return resp.StatusCode, nil, nil, fmt.Errorf("HTTP %s %s: read body: %w", method, u.Redacted(), err)
	}
	if int64(len(b)) > max {
		return resp.StatusCode, nil, nil, fmt.Errorf("HTTP response from %s is over %d bytes; raise max_output_mb if the tool needs more", u.Hostname(), max)
	}
	return resp.StatusCode, resp.Header, b, nil
}
