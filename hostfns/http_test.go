package hostfns

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

func TestHTTPPolicyAllowsHostsByNameOrGlobOnly(t *testing.T) {
	t.Parallel()
	p := HTTPPolicy{AllowedHosts: []string{"api.example.com", "*.atlassian.net"}}
	tests := []struct {
		host string
		want bool
	}{
		{"api.example.com", true},
		{"API.example.com.", true},
		{"jira.atlassian.net", true},
		{"atlassian.net", false},
		{"example.com", false},
		{"api.example.com.evil.org", false},
	}
	for _, tt := range tests {
		if got := p.hostAllowed(tt.host); got != tt.want {
			t.Errorf("hostAllowed(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
}

func TestHTTPPolicyRefusesInternalAddressesUnlessListedThemselves(t *testing.T) {
	t.Parallel()
	p := HTTPPolicy{AllowedHosts: []string{"*", "10.1.2.3", "[::1]"}}
	tests := []struct {
		addr string
		want bool
	}{
		{"93.184.216.34", true},
		{"127.0.0.1", false},
		{"::ffff:127.0.0.1", false},
		{"10.0.0.1", false},
		{"10.1.2.3", true},
		{"::1", true},
		{"192.168.1.1", false},
		{"169.254.169.254", false},
		{"fe80::1", false},
		{"100.64.0.1", false},
		{"0.0.0.0", false},
		{"64:ff9b::7f00:1", false},     // NAT64 to 127.0.0.1
		{"64:ff9b::a9fe:a9fe", false},  // NAT64 to the metadata address
		{"64:ff9b::5db8:d822", true},   // NAT64 to 93.184.216.34
		{"64:ff9b:1::c0a8:101", false}, // local-use NAT64 to 192.168.1.1
		{"2002:7f00:1::1", false},      // 6to4 of 127.0.0.1
		{"2002:0a00:0001::1", false},   // 6to4 of 10.0.0.1
		{"2002:5db8:d822::1", true},    // 6to4 of 93.184.216.34
		{"fec0::1", false},             // site-local
		{"2606:4700:4700::1111", true}, // a public IPv6 address
	}
	for _, tt := range tests {
		if got := p.addrAllowed(netip.MustParseAddr(tt.addr)); got != tt.want {
			t.Errorf("addrAllowed(%s) = %v, want %v", tt.addr, got, tt.want)
		}
	}
}

func TestHTTPPolicyChecksRedirectTargets(t *testing.T) {
	t.Parallel()
	final := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "secret") }))
	defer final.Close()
	// The first server is allowed; it redirects to a name that is not.
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.Replace(final.URL, "127.0.0.1", "localhost", 1), http.StatusFound)
	}))
	defer first.Close()
	p := HTTPPolicy{AllowedHosts: []string{"127.0.0.1"}, ConfigKey: "wasm.t"}
	_, _, err := p.Do(context.Background(), HTTPRequest{URL: first.URL}, nil)
	if !errors.Is(err, ErrHostNotAllowed) || !strings.Contains(err.Error(), "wasm.t.allowed_hosts") {
		t.Fatalf("err = %v, want a refusal of the redirect naming the setting", err)
	}
	status, body, err := p.Do(context.Background(), HTTPRequest{URL: final.URL}, nil)
	if err != nil || status != 200 || string(body) != "secret" {
		t.Fatalf("direct: %d %q %v", status, body, err)
	}
}

func TestHTTPPolicyCapsResponseBodies(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, strings.Repeat("x", 100)) }))
	defer srv.Close()
	p := HTTPPolicy{AllowedHosts: []string{"127.0.0.1"}, MaxResponse: 10}
	if _, _, err := p.Do(context.Background(), HTTPRequest{URL: srv.URL}, nil); err == nil || !strings.Contains(err.Error(), "over 10 bytes") {
		t.Fatalf("err = %v", err)
	}
}

// The host name in a refused request is the guest's, and the URL may
// spell it with percent escapes Go decodes into any character: the
// refusal's line in the host's log escapes it as a guest log line is
// escaped, so a JSON log (which keeps such characters raw) cannot be made
// to read as another line.
func TestARefusedRequestsLogLineEscapesTheHostNameTheGuestChose(t *testing.T) {
	t.Parallel()
	for _, host := range []string{"%E2%80%AEexe.gnp", "a%C2%85level=ERROR", "a%E2%80%A8b", "a%E2%80%8Fb"} {
		var out strings.Builder
		c := &Call{Tool: "probe", Logger: slog.New(slog.NewJSONHandler(&out, nil)), HTTP: HTTPPolicy{AllowedHosts: []string{"api.example.com"}}}
		_, _, _, err := c.fetch(context.Background(), HTTPRequest{URL: "http://" + host + "/"}, nil)
		if !errors.Is(err, ErrHostNotAllowed) {
			t.Fatalf("fetch to %s: %v, want a refusal", host, err)
		}
		if !strings.Contains(out.String(), "guest HTTP request refused") {
			t.Fatalf("no refusal logged for %s: %q", host, out.String())
		}
		if i := strings.IndexFunc(out.String(), func(r rune) bool { return r == '\u202e' || r == '\u0085' || r == '\u2028' || r == '\u200f' }); i >= 0 {
			t.Errorf("the refusal of %s logs %q raw: %q", host, []rune(out.String()[i:])[0], out.String())
		}
	}
}
