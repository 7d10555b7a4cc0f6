package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/toolhost/toolhost/runtime"
)

// Provider message transforms: what a transcript must look like for the
// model family it is sent to, as OpenCode's provider transforms do it.
// The transcript keeps what happened; normalizeMessages rewrites a copy
// each time messages are built, so switching models mid-session works.
//
//   - Every family: text-less assistant messages without tool calls and
//     empty user messages are dropped (several providers refuse empty
//     content), and attachments that are not images — Chat Completions
//     has no part for them — become a note in the text.
//   - Anthropic (through an OpenAI-compatible endpoint): tool-call ids may
//     only hold [a-zA-Z0-9_-]; others are sanitised.
//   - Mistral: tool-call ids are exactly 9 letters and digits, and a tool
//     message may not be followed directly by a user message, so an
//     assistant "Done." goes between them.
//
// Ids are rewritten consistently — an assistant's call and the tool
// message answering it get the same new id — and distinct ids stay
// distinct.
func normalizeMessages(msgs []Message, family Family) []Message {
	out := make([]Message, 0, len(msgs))
	ids := idMapper{family: family, seen: map[string]string{}, used: map[string]bool{}}
	for _, m := range msgs {
		switch m.Role {
		case RoleAssistant:
			if strings.TrimSpace(m.Text) == "" && len(m.ToolCalls) == 0 {
				continue
			}
			if len(m.ToolCalls) > 0 {
				calls := make([]ToolCall, len(m.ToolCalls))
				for i, c := range m.ToolCalls {
					c.ID = ids.of(c.ID)
					calls[i] = c
				}
				m.ToolCalls = calls
			}
		case RoleTool:
			m.CallID = ids.of(m.CallID)
		case RoleUser:
			m = withAttachmentNotes(m)
			if strings.TrimSpace(m.Text) == "" && len(m.Attachments) == 0 {
				continue
			}
			if family == FamilyMistral && len(out) > 0 && out[len(out)-1].Role == RoleTool {
				out = append(out, Message{Role: RoleAssistant, Text: "Done."})
			}
		}
		out = append(out, m)
	}
	return out
}

// withAttachmentNotes keeps a user message's image attachments and turns
// the others (a PDF, an archive) into a line of text naming them.
func withAttachmentNotes(m Message) Message {
	var keep []runtime.Attachment
	var notes []string
	for _, a := range m.Attachments {
		if strings.HasPrefix(a.MIME, "image/") {
			keep = append(keep, a)
			continue
		}
		name := a.Filename
		if name == "" {
			name = "an attachment"
		}
		notes = append(notes, "["+name+" ("+a.MIME+") is not shown: this model takes images only]")
	}
	if len(notes) == 0 {
		return m
	}
	m.Attachments = keep
	m.Text = strings.TrimSpace(m.Text + "\n" + strings.Join(notes, "\n"))
	return m
}

// idMapper rewrites tool-call ids for a family, the same id always to the
// same result and different ids to different results.
type idMapper struct {
	family Family
	seen   map[string]string // original → rewritten
	used   map[string]bool   // rewritten ids handed out
}

func (m *idMapper) of(id string) string {
	if m.family != FamilyAnthropic && m.family != FamilyMistral {
		return id
	}
	if got, ok := m.seen[id]; ok {
		return got
	}
	var out string
	switch m.family {
	case FamilyAnthropic:
		out = sanitizeID(id, func(r rune) bool { return isAlnum(r) || r == '_' || r == '-' }, "_")
		if out == "" {
			out = "call"
		}
	case FamilyMistral:
		out = sanitizeID(id, isAlnum, "")
		out = (out + "000000000")[:9]
	}
	// A rewrite that collides with another id's takes a digest of the
	// original instead, so two calls never answer as one.
	for i := 0; m.used[out]; i++ {
		sum := sha256.Sum256([]byte(id + strings.Repeat("'", i)))
		h := hex.EncodeToString(sum[:])
		if m.family == FamilyMistral {
			out = h[:9]
		} else {
			out = "call_" + h[:16]
		}
	}
	m.seen[id], m.used[out] = out, true
	return out
}

func sanitizeID(id string, keep func(rune) bool, repl string) string {
	var b strings.Builder
	for _, r := range id {
		if keep(r) {
			b.WriteRune(r)
		} else {
			b.WriteString(repl)
		}
	}
	return b.String()
}

func isAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}
