package server_test

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/mcp/server"
)

// A notice (an untrusted project, from the front end) reaches the client in
// the server's instructions, which clients give the model at the start of
// a session, so the person hears of it.
func TestANoticeReachesTheClientInTheInstructions(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "")
	srv, err := server.New(context.Background(), f.reg, server.Options{Notice: "Note for the user: project /p is not trusted; run `toolhost trust`."})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ct, st := sdk.NewInMemoryTransports()
	if _, err := srv.Connect(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	got := cs.InitializeResult().Instructions
	if !strings.Contains(got, "not trusted") || !strings.Contains(got, "toolhost trust") || !strings.HasPrefix(got, "Tools of the toolhost") {
		t.Errorf("instructions = %q, want the usual text and then the notice", got)
	}
}
