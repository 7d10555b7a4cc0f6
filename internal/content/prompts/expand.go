package prompts

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/internal/content/resources"
)

// MaxArgument caps one argument's value.
const MaxArgument = 64 << 10

// MaxEmbeds caps the references one prompt embeds, and MaxEmbedBytes
// their total size.
const (
	MaxEmbeds     = 16
	MaxEmbedBytes = resources.MaxRead
)

// Resolver reads what @references name.
type Resolver interface {
	// File reads a file of the project by its slash-separated path
	// relative to the project root, confined to it.
	File(path string) (resources.Content, error)
	// Resource reads a resource the server serves, by URI.
	Resource(uri string) (resources.Content, error)
}

// Expanded is a filled-in prompt: the embedded files and resources, in
// the order the template names them, then the text.
type Expanded struct {
	Embeds []resources.Content
	Text   string
}

// Errors of Expand that the client can fix.
var (
	ErrMissingArgument = errors.New("missing required argument")
	ErrUnknownArgument = errors.New("unknown argument")
	ErrBadReference    = errors.New("an argument names no served resource")
)

var (
	// placeholderRe finds every placeholder at once, so a value that
	// itself contains "$1" or "${x}" is never expanded again.
	placeholderRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\$ARGUMENTS|\$[1-9]|\$\{[A-Za-z_][A-Za-z0-9_]{0,63}\}`)
	})
	refRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|\s)@(\S+)`) })
)

// Expand fills p in with args (argument name → value) and embeds what its
// @references name.
func Expand(p Prompt, args map[string]string, r Resolver) (Expanded, error) {
	for name, v := range args {
		if !slices.ContainsFunc(p.Arguments, func(a Argument) bool { return a.Name == name }) {
			return Expanded{}, fmt.Errorf("%w %q: prompt %s takes %s", ErrUnknownArgument, name, p.Name, argumentNames(p))
		}
		if len(v) > MaxArgument {
			return Expanded{}, fmt.Errorf("argument %q: %d bytes, more than %d", name, len(v), MaxArgument)
		}
	}
	for _, a := range p.Arguments {
		if a.Required && args[a.Name] == "" {
			return Expanded{}, fmt.Errorf("%w %q of prompt %s", ErrMissingArgument, a.Name, p.Name)
		}
	}
	if p.Kind != KindCommand {
		return Expanded{Text: p.Template}, nil
	}
	sub := substituter(p, args)
	var out Expanded
	total := 0
	for _, m := range refRe().FindAllStringSubmatch(p.Template, -1) {
		if len(out.Embeds) >= MaxEmbeds {
			break
		}
		ref := strings.TrimRight(m[1], ".,;:!?)]'\"")
		filled := sub(ref)
		// Whether the client chose it is decided by the template, not by
		// the value: a value may read the same as its placeholder.
		fromArg := placeholderRe().MatchString(ref)
		var c resources.Content
		var err error
		switch {
		case fromArg && !strings.Contains(filled, "://"):
			return Expanded{}, fmt.Errorf("%w: @%s became %q; an argument may name a resource URI (scheme://…) the server lists, not a file", ErrBadReference, ref, filled)
		case strings.Contains(filled, "://"):
			c, err = r.Resource(filled)
		default:
			c, err = r.File(filled)
		}
		if err != nil {
			if fromArg {
				return Expanded{}, fmt.Errorf("%w: %q: %w", ErrBadReference, filled, err)
			}
			continue // the author's @word names nothing here: it stays text
		}
		if total += len(c.Text) + len(c.Blob); total > MaxEmbedBytes {
			return Expanded{}, fmt.Errorf("prompt %s embeds more than %d bytes; reference fewer or smaller files", p.Name, MaxEmbedBytes)
		}
		out.Embeds = append(out.Embeds, c)
	}
	out.Text = sub(p.Template)
	return out, nil
}

// substituter replaces the placeholders of p's template with args.
func substituter(p Prompt, args map[string]string) func(string) string {
	all := args[ArgumentsName]
	if !slices.ContainsFunc(p.Arguments, func(a Argument) bool { return a.Name == ArgumentsName }) {
		var vals []string
		for _, a := range p.Arguments {
			if v := args[a.Name]; v != "" {
				vals = append(vals, v)
			}
		}
		all = strings.Join(vals, " ")
	}
	words := strings.Fields(all)
	return func(s string) string {
		return placeholderRe().ReplaceAllStringFunc(s, func(m string) string {
			switch {
			case m == "$ARGUMENTS":
				return all
			case strings.HasPrefix(m, "${"):
				return args[m[2:len(m)-1]]
			default:
				n := int(m[1] - '0')
				if n <= len(words) {
					return words[n-1]
				}
				return ""
			}
		})
	}
}

func argumentNames(p Prompt) string {
	if len(p.Arguments) == 0 {
		return "no arguments"
	}
	names := make([]string, len(p.Arguments))
	for i, a := range p.Arguments {
		names[i] = a.Name
	}
	return "arguments " + strings.Join(names, ", ")
}

// Complete suggests values for argument arg of p starting with prefix:
// the values its front matter lists, at most 100.
func Complete(p Prompt, arg, prefix string) ([]string, error) {
	i := slices.IndexFunc(p.Arguments, func(a Argument) bool { return a.Name == arg })
	if i < 0 {
		return nil, fmt.Errorf("%w %q: prompt %s takes %s", ErrUnknownArgument, arg, p.Name, argumentNames(p))
	}
	var out []string
	for _, v := range p.Arguments[i].Values {
		if strings.HasPrefix(v, prefix) && len(out) < 100 {
			out = append(out, v)
		}
	}
	return out, nil
}
