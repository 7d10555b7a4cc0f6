package stdio

import (
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf8"
)

// AppendJSONString appends s to dst as a JSON string, byte for byte as
// encoding/json writes it with HTML escaping off (json.Encoder with
// SetEscapeHTML(false)): quotes, backslashes and control characters
// escaped (\b, \f, \n, \r, \t, else \u00XX), invalid UTF-8 as \ufffd, and
// U+2028 and U+2029 escaped for JavaScript readers. FuzzAppendJSONString
// holds it to that.
//
// It exists because a tool's output is the largest thing a response
// carries and this is on every call's path: written straight into the
// response buffer (splice.go), runs of plain bytes copied whole, it costs
// a fraction of encoding/json's per-byte loop and allocates nothing.
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight plain ASCII bytes at a time, the common case; a word that
		// holds another byte tells where the first such byte is.
		for i+8 <= len(s) {
			m := special8(load8(s[i : i+8]))
			if m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		b := s[i]
		if b < utf8.RuneSelf {
			if jsonPlain[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// load8 reads eight bytes of s as one word (the compiler merges the
// loads; a []byte conversion would copy).
func load8(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// special8 marks, with its high bit, each of the eight bytes in x (least
// significant first) that needs escaping or decoding: not ASCII, below
// 0x20, '"' or '\\'. Bits above the first marked byte may be wrong (the
// subtractions borrow); the lowest is exact, which is all its callers use.
func special8(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	hasZero := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	below20 := (x - 0x20*ones) & ^x & highs
	return (x & highs) | below20 | hasZero(x^('"'*ones)) | hasZero(x^('\\'*ones))
}

// jsonPlain tells the ASCII bytes a JSON string holds as they are.
var jsonPlain = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// AppendJSONValue appends v as JSON: the values tool metadata is made of
// (strings, numbers, booleans, nil, and maps and []any of them) directly,
// strings through AppendJSONString, map keys sorted; anything else through
// encoding/json. It decodes to what json.Marshal(v) decodes to (only the
// escaping of <, > and & differs), and fails where json.Marshal fails. A
// read call's metadata (a 20-line preview) cost a twentieth of its
// instructions through json.Marshal.
func AppendJSONValue(dst []byte, v any) ([]byte, error) { return appendJSONValueAt(dst, v, 0) }

// maxJSONDepth bounds the nesting AppendJSONValue follows: a map that
// holds itself would recurse until the stack ran out; encoding/json
// reports such a cycle as an error, and so does this.
const maxJSONDepth = 1000

func appendJSONValueAt(dst []byte, v any, depth int) ([]byte, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("json: unsupported value: nested more than %d levels (a cycle?)", maxJSONDepth)
	}
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return AppendJSONString(dst, v), nil
	case bool:
		return strconv.AppendBool(dst, v), nil
	case int:
		return strconv.AppendInt(dst, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(dst, v, 10), nil
	case int32:
		return strconv.AppendInt(dst, int64(v), 10), nil
	case uint64:
		return strconv.AppendUint(dst, v, 10), nil
	case float64:
		return appendJSONFloat(dst, v)
	case []any:
		if v == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendJSONValueAt(dst, e, depth+1); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case map[string]any:
		if v == nil {
			return append(dst, "null"...), nil
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendJSONString(dst, k)
			dst = append(dst, ':')
			var err error
			if dst, err = appendJSONValueAt(dst, v[k], depth+1); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}

// appendJSONFloat appends f as encoding/json writes a float64: the
// shortest representation, in exponent form below 1e-6 or from 1e21 on
// (e-07, not e-7); NaN and infinities are not JSON.
func appendJSONFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9, as encoding/json writes it.
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}
