package permission

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Config is the "permission" value of a config file, decoded with its key
// order kept (order decides under last-match-wins). It accepts:
//
//	"allow"                                   // every permission, pattern "*"
//	{"edit": "deny"}                          // one action for pattern "*"
//	{"bash": {"*": "ask", "git *": "allow"}}  // per pattern, in order
type Config struct {
	// Rules in file order. Source is left empty; the config loader fills it
	// with file and line when it knows them.
	Rules Ruleset
}

// UnmarshalJSON decodes a permission value keeping key order.
func (c *Config) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var a Action
		if err := json.Unmarshal(data, &a); err != nil {
			return err
		}
		if !a.Valid() {
			return fmt.Errorf("permission: %q is not an action; use allow, ask or deny", a)
		}
		c.Rules = append(c.Rules, Rule{Permission: "*", Pattern: "*", Action: a})
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := expectDelim(dec, '{'); err != nil {
		return fmt.Errorf("permission: must be an action or an object of permission names: %w", err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		perm := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("permission.%s: %w", perm, err)
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) > 0 && raw[0] == '"' {
			var a Action
			_ = json.Unmarshal(raw, &a)
			if !a.Valid() {
				return fmt.Errorf("permission.%s: %q is not an action; use allow, ask or deny", perm, a)
			}
			c.Rules = append(c.Rules, Rule{Permission: perm, Pattern: "*", Action: a})
			continue
		}
		inner := json.NewDecoder(bytes.NewReader(raw))
		if err := expectDelim(inner, '{'); err != nil {
			return fmt.Errorf("permission.%s: must be an action or an object of pattern to action: %w", perm, err)
		}
		for inner.More() {
			ptok, err := inner.Token()
			if err != nil {
				return fmt.Errorf("permission.%s: %w", perm, err)
			}
			pattern := ptok.(string)
			var a Action
			if err := inner.Decode(&a); err != nil {
				return fmt.Errorf("permission.%s.%s: must be allow, ask or deny: %w", perm, pattern, err)
			}
			if !a.Valid() {
				return fmt.Errorf("permission.%s.%s: %q is not an action; use allow, ask or deny", perm, pattern, a)
			}
			c.Rules = append(c.Rules, Rule{Permission: perm, Pattern: pattern, Action: a})
		}
	}
	return nil
}

// MarshalJSON writes the rules back as an object of objects, in order.
func (c Config) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	// Group consecutive rules of one permission; a permission that appears
	// again later starts a new key (JSON objects may repeat keys; our decoder
	// keeps both).
	for i := 0; i < len(c.Rules); {
		j := i
		for j < len(c.Rules) && c.Rules[j].Permission == c.Rules[i].Permission {
			j++
		}
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(c.Rules[i].Permission)
		b.Write(k)
		b.WriteString(":{")
		for n, r := range c.Rules[i:j] {
			if n > 0 {
				b.WriteByte(',')
			}
			p, _ := json.Marshal(r.Pattern)
			b.Write(p)
			b.WriteByte(':')
			a, _ := json.Marshal(r.Action)
			b.Write(a)
		}
		b.WriteByte('}')
		i = j
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("expected %q, found %v", want, tok)
	}
	return nil
}
