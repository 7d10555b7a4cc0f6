package httpguard

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestWrapRefusesWhatIsNotThisServersAndLetsTheRestThrough(t *testing.T) {
	t.Parallel()
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	tests := []struct {
		name   string
		opts   Options
		host   string
		target string
		header map[string]string
		want   int
	}{
		{name: "loopback host on loopback", opts: Options{Addr: "127.0.0.1:8766"}, host: "127.0.0.1:8766", want: http.StatusTeapot},
		{name: "localhost on loopback", opts: Options{Addr: "127.0.0.1:8766"}, host: "localhost:8766", want: http.StatusTeapot},
		{name: "another port", opts: Options{Addr: "127.0.0.1:8766"}, host: "127.0.0.1:9999", want: http.StatusForbidden},
		{name: "a rebound name", opts: Options{Addr: "127.0.0.1:8766"}, host: "evil.example:8766", want: http.StatusForbidden},
		{name: "a foreign origin", opts: Options{Addr: "127.0.0.1:8766"}, host: "127.0.0.1:8766", header: map[string]string{"Origin": "https://evil.example"}, want: http.StatusForbidden},
		{name: "a null origin", opts: Options{Addr: "127.0.0.1:8766"}, host: "127.0.0.1:8766", header: map[string]string{"Origin": "null"}, want: http.StatusForbidden},
		{name: "a loopback origin", opts: Options{Addr: "127.0.0.1:8766"}, host: "127.0.0.1:8766", header: map[string]string{"Origin": "http://127.0.0.1:8766"}, want: http.StatusTeapot},
		{name: "a name that starts like localhost", opts: Options{Addr: "127.0.0.1:8766"}, host: "localhost.evil.example:8766", want: http.StatusForbidden},
		{name: "a name that ends like localhost", opts: Options{Addr: "127.0.0.1:8766"}, host: "evil.localhost:8766", want: http.StatusForbidden},
		{name: "a short form of 127.0.0.1", opts: Options{Addr: "127.0.0.1:8766"}, host: "127.1:8766", want: http.StatusForbidden},
		{name: "no host at all", opts: Options{Addr: "127.0.0.1:8766"}, host: "", want: http.StatusForbidden},
		{name: "IPv6 loopback on loopback", opts: Options{Addr: "127.0.0.1:8766"}, host: "[::1]:8766", want: http.StatusTeapot},
		{name: "an origin whose user part says localhost", opts: Options{Addr: "127.0.0.1:8766"}, host: "127.0.0.1:8766", header: map[string]string{"Origin": "http://localhost@evil.example"}, want: http.StatusForbidden},
		{name: "an origin under a localhost-looking name", opts: Options{Addr: "127.0.0.1:8766"}, host: "127.0.0.1:8766", header: map[string]string{"Origin": "http://127.0.0.1.evil.example"}, want: http.StatusForbidden},
		{name: "no token sent", opts: Options{Addr: "127.0.0.1:8766", Token: "t"}, host: "127.0.0.1:8766", want: http.StatusUnauthorized},
		{name: "a wrong token", opts: Options{Addr: "127.0.0.1:8766", Token: "t"}, host: "127.0.0.1:8766", header: map[string]string{"Authorization": "Bearer x"}, want: http.StatusUnauthorized},
		{name: "the token", opts: Options{Addr: "127.0.0.1:8766", Token: "t"}, host: "127.0.0.1:8766", header: map[string]string{"Authorization": "Bearer t"}, want: http.StatusTeapot},
		{name: "a cookie where none is accepted", opts: Options{Addr: "127.0.0.1:8766", Token: "t"}, host: "127.0.0.1:8766", header: map[string]string{"Cookie": "c=t"}, want: http.StatusUnauthorized},
		{name: "the cookie", opts: Options{Addr: "127.0.0.1:8766", Token: "t", Cookie: "c"}, host: "127.0.0.1:8766", header: map[string]string{"Cookie": "c=t"}, want: http.StatusTeapot},
		{name: "the token in the query where none is accepted", opts: Options{Addr: "127.0.0.1:8766", Token: "t"}, host: "127.0.0.1:8766", target: "/?token=t", want: http.StatusUnauthorized},
		{name: "the token in the query signs in", opts: Options{Addr: "127.0.0.1:8766", Token: "t", Cookie: "c"}, host: "127.0.0.1:8766", target: "/?token=t", want: http.StatusSeeOther},
		{name: "a wrong token in the query", opts: Options{Addr: "127.0.0.1:8766", Token: "t", Cookie: "c"}, host: "127.0.0.1:8766", target: "/?token=x", want: http.StatusUnauthorized},
		{name: "the bound address beyond loopback", opts: Options{Addr: "10.1.2.3:8766", Token: "t"}, host: "10.1.2.3:8766", header: map[string]string{"Authorization": "Bearer t"}, want: http.StatusTeapot},
		{name: "a Service's name when bound to every interface, with the token", opts: Options{Addr: "0.0.0.0:8080", Token: "t"}, host: "toolhost.default.svc:8080", header: map[string]string{"Authorization": "Bearer t"}, want: http.StatusTeapot},
		{name: "an ingress's name when bound to every interface, with a named caller", opts: Options{Addr: "[::]:8080", Callers: fixedCaller("alice")}, host: "mcp.example.com", header: map[string]string{"Authorization": "Bearer a"}, want: http.StatusTeapot},
		{name: "a Service's name when bound to every interface, without the token", opts: Options{Addr: "0.0.0.0:8080", Token: "t"}, host: "toolhost.default.svc:8080", want: http.StatusUnauthorized},
		{name: "a foreign name when bound to every interface with no token", opts: Options{Addr: "0.0.0.0:8080"}, host: "evil.example:8080", want: http.StatusForbidden},
		{name: "a page of this server's own origin", opts: Options{Addr: "0.0.0.0:8080", Token: "t"}, host: "mcp.example.com", header: map[string]string{"Authorization": "Bearer t", "Origin": "https://mcp.example.com"}, want: http.StatusTeapot},
		{name: "a page of another origin", opts: Options{Addr: "0.0.0.0:8080", Token: "t"}, host: "mcp.example.com", header: map[string]string{"Authorization": "Bearer t", "Origin": "https://evil.example"}, want: http.StatusForbidden},
		{name: "a page of another port of this host", opts: Options{Addr: "0.0.0.0:8080", Token: "t"}, host: "mcp.example.com", header: map[string]string{"Authorization": "Bearer t", "Origin": "https://mcp.example.com:8443"}, want: http.StatusForbidden},
		{name: "localhost when bound beyond loopback", opts: Options{Addr: "10.1.2.3:8766", Token: "t"}, host: "localhost:8766", header: map[string]string{"Authorization": "Bearer t"}, want: http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			target := tt.target
			if target == "" {
				target = "/"
			}
			req := httptest.NewRequest("GET", target, nil)
			req.Host = tt.host
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			Wrap(tt.opts, ok).ServeHTTP(rec, req)
			if rec.Code != tt.want {
				t.Errorf("status %d, want %d (%s)", rec.Code, tt.want, rec.Body)
			}
		})
	}
}

// fixedCaller accepts the token "a" as caller.
type fixedCaller string

func (f fixedCaller) Authenticate(_ context.Context, token string) (string, error) {
	if token == "a" {
		return string(f), nil
	}
	return "", ErrUnknownToken
}
