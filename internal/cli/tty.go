package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/term"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// ttyAsker asks a person at a terminal.
type ttyAsker struct {
	tty *terminal
	c   palette
}

// Ask shows the request and reads once / always / reject / a message.
func (a *ttyAsker) Ask(ctx context.Context, req permission.Request) (permission.Reply, error) {
	a.tty.mu.Lock()
	defer a.tty.mu.Unlock()
	w, c := a.tty, a.c
	fmt.Fprintf(w, "\n%s\n", c.yellow(c.bold("── permission: "+req.Permission+" ──")))
	if req.Tool != "" {
		fmt.Fprintf(w, "tool:     %s\n", req.Tool)
	}
	if note := permission.AlwaysNote(req); note != "" {
		// A guest's ask names any permission; say whose "always" it is.
		fmt.Fprintf(w, "%s\n", c.yellow(note))
	}
	fmt.Fprintf(w, "patterns: %s\n", strings.Join(req.Patterns, ", "))
	if diff, ok := req.Metadata["diff"].(string); ok && diff != "" {
		fmt.Fprintf(w, "%s\n", c.diff(strings.TrimRight(diff, "\n")))
	}
	keys := make([]string, 0, len(req.Metadata))
	for k := range req.Metadata {
		if k != "diff" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		b, _ := json.Marshal(req.Metadata[k])
		fmt.Fprintf(w, "%s: %s\n", k, b)
	}
	always := ""
	if len(req.Always) > 0 {
		always = " (" + strings.Join(req.Always, ", ") + ")"
	}
	fmt.Fprintf(w, "%s  %s%s  %s  or type a message to reject with feedback: ", c.bold("[o]nce"), c.bold("[a]lways"), always, c.bold("[r]eject"))
	line, err := a.tty.readLine(ctx)
	if err != nil {
		return permission.Reply{}, err
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "o", "once", "y", "yes":
		return permission.Reply{Kind: permission.Once}, nil
	case "a", "always":
		return permission.Reply{Kind: permission.Always}, nil
	case "r", "reject", "n", "no", "":
		return permission.Reply{Kind: permission.Reject}, nil
	}
	return permission.Reply{Kind: permission.Reject, Message: strings.TrimSpace(line)}, nil
}

// terminal is a person's terminal: prompts are written to it and answers
// read from it, one line at a time, by a single reader goroutine so a
// cancelled question never leaves a competing read behind.
type terminal struct {
	// mu serialises prompts: concurrent tool calls (batch) must not
	// interleave their questions.
	mu    sync.Mutex
	rw    io.ReadWriter
	once  sync.Once
	lines chan lineResult
}

type lineResult struct {
	s   string
	err error
}

func newTerminal(rw io.ReadWriter) *terminal { return &terminal{rw: rw} }

func (t *terminal) Write(p []byte) (int, error) { return t.rw.Write(p) }

// readLine reads one line, giving up when ctx ends.
func (t *terminal) readLine(ctx context.Context) (string, error) {
	t.once.Do(func() {
		t.lines = make(chan lineResult)
		go func() {
			br := bufio.NewReader(t.rw)
			for {
				s, err := br.ReadString('\n')
				t.lines <- lineResult{s, err}
				if err != nil {
					close(t.lines)
					return
				}
			}
		}()
	})
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case res, ok := <-t.lines:
		if !ok {
			return "", fmt.Errorf("read answer from terminal: %w", io.EOF)
		}
		if res.err != nil && res.s == "" {
			return "", fmt.Errorf("read answer from terminal: %w", res.err)
		}
		return res.s, nil
	}
}

// ttyQuestioner lets the question tool ask a person at a terminal.
type ttyQuestioner struct{ tty *terminal }

// AskQuestions asks each question in turn; options are chosen by number
// (several, comma-separated, when multiple), or typed freely.
func (q *ttyQuestioner) AskQuestions(ctx context.Context, qs []runtime.Question) ([][]string, error) {
	q.tty.mu.Lock()
	defer q.tty.mu.Unlock()
	answers := make([][]string, 0, len(qs))
	for _, question := range qs {
		fmt.Fprintf(q.tty, "\n? %s\n", question.Question)
		for i, o := range question.Options {
			fmt.Fprintf(q.tty, "  %d) %s\n", i+1, o)
		}
		prompt := "> "
		if question.Multiple && len(question.Options) > 0 {
			prompt = "(numbers separated by commas, or your own answer) > "
		}
		fmt.Fprint(q.tty, prompt)
		line, err := q.tty.readLine(ctx)
		if err != nil {
			return nil, err
		}
		answers = append(answers, parseAnswer(strings.TrimSpace(line), question))
	}
	return answers, nil
}

func parseAnswer(line string, q runtime.Question) []string {
	if len(q.Options) == 0 || line == "" {
		return []string{line}
	}
	var picked []string
	for _, part := range strings.Split(line, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 || n > len(q.Options) {
			return []string{line} // a free-form answer
		}
		picked = append(picked, q.Options[n-1])
		if !q.Multiple {
			break
		}
	}
	return picked
}
