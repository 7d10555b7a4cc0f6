package pkg

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/internal/observe/progress"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// TestADownloadShowsTheBytesFetched: a plugin fetched over HTTPS shows on
// a terminal how many bytes have arrived.
func TestADownloadShowsTheBytesFetched(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write(bytes.Repeat([]byte("x"), 3000))
	}))
	defer srv.Close()
	var out lockedBuffer
	ctx := progress.With(context.Background(), progress.NewTerminal(&out))
	task := progress.Start(ctx, "fetching "+srv.URL)
	m := &Manager{}
	b, err := m.download(withTask(ctx, task), srv.URL, true, 1<<20, nil)
	task.Done("fetched", err)
	if err != nil || len(b) != 3000 {
		t.Fatalf("download = %d bytes, %v", len(b), err)
	}
	out.mu.Lock()
	defer out.mu.Unlock()
	if !strings.Contains(out.b.String(), "2.9 KB") {
		t.Errorf("the progress line never showed the bytes fetched: %q", out.b.String())
	}
}
