package python

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

// The guest writes what it likes on fd 1: the host must parse lines, stop
// the instance on anything that is not a protocol message, and never
// panic or grow without bound.
func TestTheProtocolReaderStopsAGuestThatBreaksIt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		msgs     int
		broken   bool
	}{
		{"a message a line is queued", `{"op":"ready"}` + "\n", 1, false},
		{"a raw control byte inside a line breaks the protocol", `{"op":"re` + "\x00" + `ady"}` + "\n", 0, true},
		{"a partial line waits for its end", `{"op":"ready"}`, 0, false},
		{"text that is not JSON breaks the protocol", "hello\n", 0, true},
		{"JSON without an op breaks the protocol", `{"value":1}` + "\n", 0, true},
		{"a JSON array breaks the protocol", `[1,2]` + "\n", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := newInstance(context.Background(), 64)
			in.stdout.Write([]byte(tt.in))
			if got := len(in.msgs); got != tt.msgs {
				t.Errorf("queued %d messages, want %d", got, tt.msgs)
			}
			if broken := errors.Is(context.Cause(in.ctx), errProtocol); broken != tt.broken {
				t.Errorf("protocol broken = %v, want %v", broken, tt.broken)
			}
		})
	}
	t.Run("a line in two writes is one message", func(t *testing.T) {
		in := newInstance(context.Background(), 64)
		in.stdout.Write([]byte(`{"op":"res`))
		in.stdout.Write([]byte(`ult","value":{}}` + "\n"))
		if m := <-in.msgs; m.Op != "result" {
			t.Fatalf("message = %+v", m)
		}
	})
	t.Run("a line over the bound breaks the protocol", func(t *testing.T) {
		in := newInstance(context.Background(), 64)
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for i := 0; i <= maxLine>>20 && context.Cause(in.ctx) == nil; i++ {
			in.stdout.Write(chunk)
		}
		if !errors.Is(context.Cause(in.ctx), errProtocol) {
			t.Fatal("an endless line was buffered")
		}
	})
}

func FuzzLines(f *testing.F) {
	f.Add([]byte(`{"op":"ready"}` + "\n" + `{"op":"result","value":{"output":"x"}}` + "\n"))
	f.Add([]byte("\n\n{}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		in := newInstance(context.Background(), 64)
		in.msgs = make(chan message, len(b)+1)
		in.stdout.Write(b)
	})
}
