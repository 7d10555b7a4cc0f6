package inbox

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Where a person finds the inbox. Each project has a stable address: a
// loopback port derived from the project's path, in a range below every
// system's ephemeral ports (Linux hands out 32768–60999 for outgoing
// connections, Windows and macOS 49152 and up), so the port is free unless
// another server took it. A bookmark keeps working across restarts, and a
// person who has opened it once is still signed in (the token is the
// user's, below). When the port is taken — by another toolhost of the same
// project, say — the next ports of the range are tried, then one the
// system picks.
//
// A running inbox leaves a record in the data directory (inbox/, one file
// per inbox, removed when it stops) naming its project and URL, so
// `toolhost inbox` finds the project's inboxes without knowing the port;
// the record holds no token.
//
// The token is one per user, made on first use and kept in
// <data>/inbox/token (mode 0600): the browser's cookie then opens every
// project's inbox, and `toolhost inbox` can open the page signed in. The
// bash sandbox hides that directory like the credentials it hides
// (internal/confine/sandbox), so a command the model runs cannot read the token and
// answer its own question.

// The stable ports: PortBase up to PortBase+PortSpan-1.
const (
	PortBase = 27100
	PortSpan = 800
	// portTries is how many ports of the range are tried before the
	// system picks one.
	portTries = 8
)

// StablePort is the project's own port in the range.
func StablePort(project string) int {
	h := fnv.New32a()
	h.Write([]byte(filepath.Clean(project)))
	return PortBase + int(h.Sum32()%PortSpan)
}

// ListenStable listens on host (a loopback address) at the project's
// stable port, else the next free one of the range, else a port the system
// picks. An error other than the port being taken is returned as is.
func ListenStable(host, project string) (net.Listener, error) {
	first := StablePort(project) - PortBase
	for i := range portTries {
		port := PortBase + (first+i)%PortSpan
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err == nil {
			return ln, nil
		}
		if !isAddrInUse(err) {
			return nil, err
		}
	}
	return net.Listen("tcp", net.JoinHostPort(host, "0"))
}

func isAddrInUse(err error) bool {
	// syscall.EADDRINUSE differs by system (and is WSAEADDRINUSE on
	// Windows); the text is the same everywhere Go runs.
	s := err.Error()
	return strings.Contains(s, "address already in use") || strings.Contains(s, "Only one usage of each socket address")
}

// Record is what a running inbox publishes in the data directory.
type Record struct {
	// Project is the worktree the inbox serves.
	Project string `json:"project"`
	// URL is the page's address, without the token.
	URL string `json:"url"`
	// PID is the toolhost process serving it.
	PID int `json:"pid"`
	// Started is when it started.
	Started time.Time `json:"started"`
	// UserToken says the inbox takes the user's token (UserToken); false
	// when it was given one (--inbox-token, $TOOLHOST_INBOX_TOKEN).
	UserToken bool `json:"userToken"`
}

// recordDir is where records and the token are kept.
func recordDir(dataDir string) string { return filepath.Join(dataDir, "inbox") }

// projectKey names a project's records: a digest of its path.
func projectKey(project string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(project)))
	return hex.EncodeToString(sum[:8])
}

// Publish writes rec where Published finds it; remove deletes it.
func Publish(dataDir string, rec Record) (remove func(), err error) {
	u, err := parseLoopbackURL(rec.URL)
	if err != nil {
		return nil, err
	}
	dir := recordDir(dataDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("publish the inbox's address: %w", err)
	}
	name := filepath.Join(dir, projectKey(rec.Project)+"-"+u.Port()+".json")
	b, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(name, b); err != nil {
		return nil, fmt.Errorf("publish the inbox's address: %w", err)
	}
	return func() { _ = os.Remove(name) }, nil
}

// Published returns the records of the project's inboxes, stable port
// first; records that do not parse are skipped.
func Published(dataDir, project string) ([]Record, error) {
	prefix := projectKey(project) + "-"
	entries, err := os.ReadDir(recordDir(dataDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("find the project's inboxes: %w", err)
	}
	var out []Record
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(recordDir(dataDir), e.Name()))
		if err != nil {
			continue
		}
		var r Record
		if json.Unmarshal(b, &r) != nil || filepath.Clean(r.Project) != filepath.Clean(project) {
			continue
		}
		if _, err := parseLoopbackURL(r.URL); err != nil {
			continue // a record pointing away from this machine is not followed
		}
		out = append(out, r)
	}
	return out, nil
}

// Forget removes the record of an inbox that is gone.
func Forget(dataDir string, rec Record) {
	if u, err := parseLoopbackURL(rec.URL); err == nil {
		_ = os.Remove(filepath.Join(recordDir(dataDir), projectKey(rec.Project)+"-"+u.Port()+".json"))
	}
}

// tokenPattern is what a stored token must look like.
var tokenPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

// UserToken returns the user's inbox token, making it on first use. A
// token file that others may read, or that is not a token, is replaced:
// the old token may have leaked.
func UserToken(dataDir string) (string, error) {
	if tok, err := ReadUserToken(dataDir); err == nil {
		return tok, nil
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("make the inbox token: %w", err)
	}
	tok := hex.EncodeToString(b[:])
	if err := os.MkdirAll(recordDir(dataDir), 0o700); err != nil {
		return "", fmt.Errorf("keep the inbox token: %w", err)
	}
	if err := writeFileAtomic(filepath.Join(recordDir(dataDir), "token"), []byte(tok+"\n")); err != nil {
		return "", fmt.Errorf("keep the inbox token: %w", err)
	}
	// Two processes starting at once may each write one; the file's is
	// the one both must use.
	return ReadUserToken(dataDir)
}

// ReadUserToken reads the user's inbox token without making one.
func ReadUserToken(dataDir string) (string, error) {
	name := filepath.Join(recordDir(dataDir), "token")
	fi, err := os.Lstat(name)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("inbox token %s: not a regular file readable by its owner alone (mode %s)", name, fi.Mode())
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(b))
	if !tokenPattern.MatchString(tok) {
		return "", fmt.Errorf("inbox token %s: not a token", name)
	}
	return tok, nil
}

// writeFileAtomic writes b to name (mode 0600) through a temporary file, so
// a reader never sees half of it.
func writeFileAtomic(name string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(name), ".tmp-")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), name)
}

// parseLoopbackURL accepts only http URLs on a loopback address with a port.
func parseLoopbackURL(raw string) (*urlParts, error) {
	rest, ok := strings.CutPrefix(raw, "http://")
	if !ok {
		return nil, fmt.Errorf("inbox URL %q: not http://", raw)
	}
	hostport, _, _ := strings.Cut(rest, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return nil, fmt.Errorf("inbox URL %q: %w", raw, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		if host != "localhost" {
			return nil, fmt.Errorf("inbox URL %q: not loopback", raw)
		}
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return nil, fmt.Errorf("inbox URL %q: bad port", raw)
	}
	return &urlParts{host: host, port: port}, nil
}

type urlParts struct{ host, port string }

func (u *urlParts) Port() string { return u.port }

// Live reports whether the process that published rec still runs as this
// user: the token is sent only to an inbox whose publisher is alive, not to
// whatever took its port after it stopped.
func Live(rec Record) bool { return processAlive(rec.PID) }

// noRedirects keeps a token sent to an inbox from following a redirect.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// Waiting asks the inbox at url (a Record's) how many questions wait
// there, with the token; an error means it is not a live inbox this token
// opens. Check Live first.
func Waiting(ctx context.Context, url, token string) (int, error) {
	if _, err := parseLoopbackURL(url); err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(url, "/")+"/api/requests", nil)
	if err != nil {
		return 0, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("inbox at %s: %s", url, resp.Status)
	}
	var body struct {
		Requests []json.RawMessage `json:"requests"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 8<<20)).Decode(&body); err != nil {
		return 0, fmt.Errorf("inbox at %s: %w", url, err)
	}
	return len(body.Requests), nil
}
