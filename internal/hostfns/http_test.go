package hostfns

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	extism "github.com/extism/go-sdk"
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
	_, _, err := p.Do(context.Background(), extism.HttpRequest{Url: first.URL}, nil)
	if !errors.Is(err, ErrHostNotAllowed) || !strings.Contains(err.Error(), "wasm.t.allowed_hosts") {
		t.Fatalf("err = %v, want a refusal of the redirect naming the setting", err)
	}
	status, body, err := p.Do(context.Background(), extism.HttpRequest{Url: final.URL}, nil)
	if err != nil || status != 200 || string(body) != "secret" {
		t.Fatalf("direct: %d %q %v", status, body, err)
	}
}

func TestHTTPPolicyCapsResponseBodies(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, strings.Repeat("x", 100)) }))
	defer srv.Close()
	p := HTTPPolicy{AllowedHosts: []string{"127.0.0.1"}, MaxResponse: 10}
	if _, _, err := p.Do(context.Background(), extism.HttpRequest{Url: srv.URL}, nil); err == nil || !strings.Contains(err.Error(), "over 10 bytes") {
		t.Fatalf("err = %v", err)
	}
}
