package wasm

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/runtime/config"
)

func TestFilesAreReachableOnlyThroughGrantedPaths(t *testing.T) {
	t.Parallel()
	project := t.TempDir()
	os.WriteFile(filepath.Join(project, "notes.md"), []byte("granted content"), 0o644)
	tests := []struct {
		name    string
		cfg     map[string]config.WasmConfig
		want    string
		wantErr string
	}{
		{"without a grant the guest sees no file system", nil, "", "notes.md"},
		{"a read-only grant of the project root maps it into the guest", map[string]config.WasmConfig{"kitchen": {AllowedPaths: map[string]string{"ro:.": "/project"}}}, "granted content", ""},
		{"a grant of another tool does not apply", map[string]config.WasmConfig{"other": {AllowedPaths: map[string]string{"ro:.": "/project"}}}, "", "notes.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tools := kitchen(t, &config.Config{Wasm: tt.cfg})
			tc := testContext(t, nil, nil)
			tc.Worktree, tc.Directory = project, project
			res, err := call(t, tools["kitchen_read"], `{"path": "/project/notes.md"}`, tc)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("res = %+v, err = %v; want an error", res, err)
				}
				return
			}
			if err != nil || res.Output != tt.want {
				t.Fatalf("res = %+v, err = %v", res, err)
			}
		})
	}
}

func TestEnvironmentIsEmptyUnlessGranted(t *testing.T) {
	t.Setenv("TOOLHOST_TEST_LANG", "xx_YY")
	for _, tt := range []struct {
		name string
		cfg  map[string]config.WasmConfig
		want bool
	}{
		{"no variables by default", nil, false},
		{"listed variables pass through", map[string]config.WasmConfig{"kitchen": {Env: []string{"TOOLHOST_TEST_LANG"}}}, true},
	} {
		tools := kitchen(t, &config.Config{Wasm: tt.cfg})
		res, err := call(t, tools["kitchen_env"], `{}`, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(res.Output, "TOOLHOST_TEST_LANG=xx_YY"); got != tt.want {
			t.Errorf("%s: env = %q", tt.name, res.Output)
		}
	}
}

func TestHTTPReachesOnlyAllowedHostsAndNeverInternalAddressesByName(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "hello from ", r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	port := u.Port()
	tests := []struct {
		name    string
		allowed []string
		url     string
		want    string
		wantErr string
	}{
		{"nothing is reachable by default", nil, srv.URL + "/a", "", "wasm.kitchen.allowed_hosts"},
		{"a loopback address listed itself is reachable", []string{"127.0.0.1"}, srv.URL + "/a", "200 hello from /a", ""},
		{"an allowed name that resolves to loopback is refused", []string{"localhost"}, "http://localhost:" + port + "/a", "", "internal address"},
		{"a host that is not listed is refused before any lookup", []string{"example.com"}, srv.URL, "", "not allowed"},
		{"a glob does not let a guest reach loopback", []string{"*"}, "http://localhost:" + port + "/a", "", "internal address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tools := kitchen(t, &config.Config{Wasm: map[string]config.WasmConfig{"kitchen": {AllowedHosts: tt.allowed}}})
			res, err := call(t, tools["kitchen_fetch"], `{"url": "`+tt.url+`"}`, nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, hostfns.ErrHostNotAllowed) {
					t.Fatalf("res = %+v, err = %v; want a refusal mentioning %q", res, err, tt.wantErr)
				}
				return
			}
			if err != nil || res.Output != tt.want {
				t.Fatalf("res = %+v, err = %v", res, err)
			}
		})
	}
}
