// Package pgtest runs a real PostgreSQL server for tests: Debian's
// postgresql package, started in a temporary directory on a free loopback
// port, one server per test package. Tests that need it call
// Shared.Database, which skips the test when PostgreSQL is not installed —
// and fails it when CI=true, where .ci/run installs it.
//
// PostgreSQL refuses to run as root, and tests (CI included) often run as
// root; the server then runs as the "postgres" user the package creates
// (else "nobody"), through the process credentials os/exec sets, with its
// data directory handed to that user.
//
// A package uses it from TestMain, which stops the server at the end:
//
//	var pg pgtest.Shared
//
//	func TestMain(m *testing.M) { os.Exit(pg.Main(m)) }
//
//	func TestX(t *testing.T) { url := pg.Database(t) ... }
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrNotInstalled is returned by Start when no PostgreSQL server binaries
// are found.
var ErrNotInstalled = errors.New("PostgreSQL is not installed (apt-get install postgresql)")

// Server is a PostgreSQL server run by a test binary.
type Server struct {
	bin  string // directory of initdb, pg_ctl, postgres
	dir  string // temporary directory: data/ and the log
	port int
	cred *credentials // nil unless running as root

	mu     sync.Mutex
	next   int           // databases made
	proc   *os.Process   // the postmaster while it runs
	exited chan struct{} // closed when it has exited
}

// findBin returns the directory of the newest installed server binaries.
func findBin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", ErrNotInstalled
}

func version(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// Start initialises a cluster in a new temporary directory and starts it
// on a free loopback port. Stop removes it again.
func Start(ctx context.Context) (*Server, error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	cred, err := credential()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "toolhost-pg-")
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, dir: dir, cred: cred}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("hand %s to the postgres user: %w", dir, err)
		}
	}
	if out, err := s.run(ctx, "initdb", "-D", s.data(), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	if err := s.Restart(ctx); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

func (s *Server) data() string { return filepath.Join(s.dir, "data") }

// run runs one of PostgreSQL's programs as the server's user.
func (s *Server) run(ctx context.Context, prog string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(s.bin, prog), args...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "HOME="+s.dir)
	if s.cred != nil {
		cmd.SysProcAttr = runAs(s.cred)
	}
	return cmd.CombinedOutput()
}

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Restart starts a stopped server again, on the port it had (a new one
// the first time), and waits until it accepts connections.
//
// The postmaster runs as this process's child, not daemonized by pg_ctl,
// with a parent-death signal: a test binary that panics or is killed
// takes its server with it instead of leaving it running.
func (s *Server) Restart(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc != nil {
		return errors.New("pgtest: server already running")
	}
	if s.port == 0 {
		p, err := freePort()
		if err != nil {
			return err
		}
		s.port = p
	}
	logf, err := os.OpenFile(filepath.Join(s.dir, "log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	// Fast and forgetful: the data is a test's, thrown away afterwards.
	cmd := exec.Command(filepath.Join(s.bin, "postgres"), "-D", s.data(),
		"-p", strconv.Itoa(s.port),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories=",
		"-c", "fsync=off",
		"-c", "synchronous_commit=off",
		"-c", "full_page_writes=off",
		"-c", "max_connections=400",
		"-c", "shared_buffers=32MB",
	)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "HOME="+s.dir)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = postmasterAttr(s.cred)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	s.proc, s.exited = cmd.Process, exited
	// Wait until it answers, or exits.
	for {
		conn, err := pgx.Connect(ctx, s.URL("postgres")+"&connect_timeout=2")
		if err == nil {
			conn.Close(context.Background())
			return nil
		}
		select {
		case <-exited:
			s.proc = nil
			log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
			return fmt.Errorf("postgres exited while starting: %v\n%s", err, log)
		case <-ctx.Done():
			_ = s.proc.Signal(syscall.SIGQUIT)
			<-exited
			s.proc = nil
			return fmt.Errorf("postgres did not start: %w (last: %v)", ctx.Err(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Stop stops the server with a fast shutdown, dropping its connections;
// Restart starts it again.
func (s *Server) Stop(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return nil
	}
	// SIGINT is PostgreSQL's fast shutdown.
	if err := s.proc.Signal(syscall.SIGINT); err != nil {
		return fmt.Errorf("stop postgres: %w", err)
	}
	select {
	case <-s.exited:
	case <-ctx.Done():
		_ = s.proc.Kill()
		<-s.exited
	}
	s.proc = nil
	return nil
}

// Close stops the server and removes its directory.
func (s *Server) Close() error {
	err := s.Stop(context.Background())
	return errors.Join(err, os.RemoveAll(s.dir))
}

// URL is the connection string of database db as the superuser.
func (s *Server) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
}

// Port is the server's loopback port.
func (s *Server) Port() int { return s.port }

// NewDatabase creates an empty database and returns its URL.
func (s *Server) NewDatabase(ctx context.Context) (string, error) {
	s.mu.Lock()
	s.next++
	name := fmt.Sprintf("t%d", s.next)
	s.mu.Unlock()

	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		return "", err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return s.URL(name), nil
}

// Shared is the one server of a test package, started by the first test
// that asks for a database and stopped by Main.
type Shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// Main runs the package's tests and stops the server if one started.
func (p *Shared) Main(m *testing.M) int {
	code := m.Run()
	if p.srv != nil {
		if err := p.srv.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
		}
	}
	return code
}

// Server returns the package's server, starting it on first use. When it
// cannot start, the test is skipped — or failed when CI=true, where a
// missing PostgreSQL is a broken CI set-up, not an absent option.
func (p *Shared) Server(t testing.TB) *Server {
	t.Helper()
	p.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		p.srv, p.err = Start(ctx)
	})
	if p.err != nil {
		if os.Getenv("CI") == "true" || !errors.Is(p.err, ErrNotInstalled) {
			t.Fatalf("start PostgreSQL: %v", p.err)
		}
		t.Skipf("start PostgreSQL: %v", p.err)
	}
	return p.srv
}

// Database returns the URL of a new, empty database on the package's
// server; see Server for when it skips.
func (p *Shared) Database(t testing.TB) string {
	t.Helper()
	url, err := p.Server(t).NewDatabase(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return url
}
