package pkg

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/plugins/wasm"
)

// listing is every path under dir with its size, sorted: what "the cache
// is exactly as before" compares.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s %d %v", p, info.Size(), d.IsDir()))
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// sizeServer serves one archive three ways: with a Content-Length, without
// one (chunked), and as a body that never ends.
func sizeServer(t *testing.T, archive []byte) *httptest.Server {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/declared.tar.gz":
			w.Header().Set("Content-Length", strconv.Itoa(len(archive)))
			w.Write(archive)
		case "/chunked.tar.gz":
			// Flushing before the body is written leaves the length out.
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			w.Write(archive)
		case "/endless.tar.gz":
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			chunk := make([]byte, 32<<10)
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestAnArchiveOverTheSizeLimitIsRefusedAndLeavesNothingBehind covers each
// way a package arrives. The limit is set just under the archive's size;
// the same archive at exactly the limit is accepted, so the boundary is
// where the config says.
func TestAnArchiveOverTheSizeLimitIsRefusedAndLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	dir := writePlugin(t, t.TempDir(), "jira", "1.0.0", wasm.Capabilities{}, fakeModule)
	archive := pack(t, dir)
	size := int64(len(archive))
	srv := sizeServer(t, archive)
	local := filepath.Join(t.TempDir(), "jira-1.0.0.tar.gz")
	if err := os.WriteFile(local, archive, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		ref      string
		limit    int64
		wantSize int64 // in the error; -1 when the size was not declared
		wantOK   bool
	}{
		{"https with a Content-Length is refused before the body is read", srv.URL + "/declared.tar.gz", size - 1, size, false},
		{"https without a Content-Length is cut one byte past the limit", srv.URL + "/chunked.tar.gz", size - 1, -1, false},
		{"https with a body that never ends is cut at the limit", srv.URL + "/endless.tar.gz", 1 << 20, -1, false},
		{"a local archive is refused by its size", local, size - 1, size, false},
		{"a local directory is refused by its packed size", dir, size - 1, size, false},
		{"https at exactly the limit is accepted", srv.URL + "/declared.tar.gz", size, 0, true},
		{"https without a Content-Length at exactly the limit is accepted", srv.URL + "/chunked.tar.gz", size, 0, true},
		{"a local archive at exactly the limit is accepted", local, size, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := newManager(t, &consentLog{answer: true})
			m.HTTPClient = srv.Client()
			m.MaxArchiveBytes = tt.limit
			before := listing(t, m.Cache.Dir)
			_, err := m.Add(context.Background(), tt.ref, true)
			if tt.wantOK {
				if err != nil {
					t.Fatalf("add at the limit: %v", err)
				}
				return
			}
			checkTooLarge(t, err, tt.ref, tt.wantSize, tt.limit)
			if after := listing(t, m.Cache.Dir); !slices.Equal(before, after) {
				t.Errorf("the cache changed:\nbefore %v\nafter  %v", before, after)
			}
			if _, err := os.Stat(m.LockPath); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a lock file was written: %v", err)
			}
		})
	}
}

func checkTooLarge(t *testing.T, err error, ref string, size, limit int64) {
	t.Helper()
	var tl *ArchiveTooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("err = %v, want *ArchiveTooLargeError", err)
	}
	if tl.Size != size || tl.Limit != limit || tl.Ref != ref {
		t.Errorf("error %+v, want ref %s, size %d, limit %d", tl, ref, size, limit)
	}
	msg := err.Error()
	wants := []string{strconv.FormatInt(limit, 10), `"plugin_limits": {"max_archive_bytes": `, "nothing was written"}
	if size >= 0 {
		wants = append(wants, strconv.FormatInt(size, 10)+" bytes")
	}
	for _, w := range wants {
		if !strings.Contains(msg, w) {
			t.Errorf("message %q lacks %q", msg, w)
		}
	}
}

func TestTheDefaultLimitIs100MB(t *testing.T) {
	t.Parallel()
	if got := (&Manager{}).archiveLimit(); got != 100<<20 {
		t.Errorf("default limit %d, want 100 MB", got)
	}
	if got := (&Manager{MaxArchiveBytes: 5}).archiveLimit(); got != 5 {
		t.Errorf("limit %d, want the configured 5", got)
	}
}

// TestAnOCIArtifactOverTheSizeLimitIsRefusedBeforeAnyBlobIsCached: the
// descriptors' declared sizes decide — the manifest's, then the config's
// and layers' together — before any blob is fetched.
func TestAnOCIArtifactOverTheSizeLimitIsRefusedBeforeAnyBlobIsCached(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	addr := startRegistry(t)
	ref := "oci://" + addr + "/acme/big:1.0.0"
	module := append(slices.Clone(fakeModule), make([]byte, 8<<10)...) // never compiled: Inspect is nil
	archive := pack(t, writePlugin(t, t.TempDir(), "big", "1.0.0", wasm.Capabilities{}, module))
	if _, err := Push(ctx, archive, ref, RegistryOptions{}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		limit   int64
		minSize int64
	}{
		{"a limit under the manifest's size refuses the manifest", 64, 65},
		{"a limit over the manifest but under the layers refuses the layers", 4 << 10, int64(len(module))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newManager(t, &consentLog{answer: true})
			m.MaxArchiveBytes = tt.limit
			before := listing(t, m.Cache.Dir)
			_, err := m.Add(ctx, ref, true)
			var tl *ArchiveTooLargeError
			if !errors.As(err, &tl) || tl.Limit != tt.limit || tl.Size < tt.minSize || !strings.Contains(err.Error(), `"plugin_limits": {"max_archive_bytes": `) {
				t.Fatalf("err = %v, want *ArchiveTooLargeError of at least %d bytes over %d", err, tt.minSize, tt.limit)
			}
			if after := listing(t, m.Cache.Dir); !slices.Equal(before, after) {
				t.Errorf("the cache changed:\nbefore %v\nafter  %v", before, after)
			}
			m.MaxArchiveBytes = 0 // the default takes it
			if _, err := m.Add(ctx, ref, true); err != nil {
				t.Fatalf("add under the default limit: %v", err)
			}
		})
	}
}
