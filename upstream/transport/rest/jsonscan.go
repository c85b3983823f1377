package rest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/okrgate/okrgate/upstream"
)

// scanJSON makes one pass over a request body before it is decoded,
// refusing what encoding/json would accept silently:
//   - a key given twice in one object (encoding/json keeps the last), and
//     two keys that differ only in case (encoding/json matches field names
//     case-insensitively, so they name the same field);
//   - a string that is not valid UTF-8 or holds an unpaired surrogate escape
//     (encoding/json replaces both with U+FFFD);
//   - a string holding a NUL character (the \u0000 escape; a raw NUL byte
//     is already invalid JSON).
//
// Each refusal is an invalid_input error naming the field by its path
// ("settings.goalsPerOwnerLimit", "tags[1].title"). The pass only follows
// the structure: syntax errors are left to the decoder, which reports them
// with their offset. encoding/json/jsontext would report duplicates and
// invalid UTF-8 itself, but Go 1.26 ships it only behind GOEXPERIMENT=jsonv2;
// json.Decoder.Token allocates per token (4–6× the decode of a small body),
// so this is a byte scanner that allocates only for keys and escaped strings.
func scanJSON(body []byte) error {
	var stack []scanFrame
	for i := 0; i < len(body); {
		switch c := body[i]; c {
		case '{', '[':
			stack = append(stack, scanFrame{object: c == '{', expectKey: c == '{'})
			i++
		case '}', ']':
			if len(stack) == 0 {
				return nil // syntax: the decoder reports it
			}
			stack = stack[:len(stack)-1]
			i++
		case ',':
			if len(stack) > 0 {
				top := &stack[len(stack)-1]
				top.expectKey = top.object
				top.index++
			}
			i++
		case '"':
			end, escaped := stringEnd(body, i)
			if end < 0 {
				return nil // an unterminated string: the decoder reports it
			}
			raw := body[i+1 : end-1]
			i = end
			isKey := len(stack) > 0 && stack[len(stack)-1].expectKey
			value, msg := checkString(raw, escaped, isKey)
			if !isKey {
				if msg != "" {
					return upstream.Invalid(scanPath(stack, len(stack)), "%s", msg)
				}
				continue
			}
			top := &stack[len(stack)-1]
			if msg != "" {
				return upstream.Invalid(scanPath(stack, len(stack)-1), "has a key that %s", msg)
			}
			top.key, top.expectKey = value, false
			if top.seen(strings.ToLower(value)) {
				return upstream.Invalid(scanPath(stack, len(stack)), "is given more than once; give each field once")
			}
		default:
			i++
		}
	}
	return nil
}

// scanFrame is one open object or array of scanJSON.
type scanFrame struct {
	object    bool
	expectKey bool // an object expects a key next
	key       string
	index     int             // the current element (arrays)
	keys      []string        // folded keys seen, while few
	keySet    map[string]bool // folded keys seen, once many
}

// seen records a folded key and reports whether it was seen before. Small
// objects use a slice; past 16 keys a map keeps the pass linear.
func (f *scanFrame) seen(k string) bool {
	if f.keySet != nil {
		if f.keySet[k] {
			return true
		}
		f.keySet[k] = true
		return false
	}
	if slices.Contains(f.keys, k) {
		return true
	}
	f.keys = append(f.keys, k)
	if len(f.keys) > 16 {
		f.keySet = make(map[string]bool, 2*len(f.keys))
		for _, x := range f.keys {
			f.keySet[x] = true
		}
		f.keys = nil
	}
	return false
}

// scanPath names the position of the first n frames of stack:
// "settings.goalsPerOwnerLimit", "tags[1].title"; "body" for none.
func scanPath(stack []scanFrame, n int) string {
	var b strings.Builder
	for _, f := range stack[:n] {
		if f.object {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(f.key)
		} else {
			fmt.Fprintf(&b, "[%d]", f.index)
		}
	}
	return fieldName(b.String())
}

// stringEnd returns the index just after the closing quote of the string
// starting at body[start], and whether it holds escapes; -1 if it is not
// terminated.
func stringEnd(body []byte, start int) (end int, escaped bool) {
	for j := start + 1; j < len(body); j++ {
		switch body[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return -1, escaped
}

// checkString checks the raw bytes of one string (without its quotes) and
// returns what is wrong with it, or "". The decoded value is returned for a
// key (needKey) or when decoding was needed anyway (escapes).
func checkString(raw []byte, escaped, needKey bool) (value, msg string) {
	if !utf8.Valid(raw) {
		return "", "must be valid UTF-8"
	}
	if !escaped {
		if bytes.IndexByte(raw, 0) >= 0 {
			return "", "must not contain NUL characters"
		}
		if needKey {
			value = string(raw)
		}
		return value, ""
	}
	quoted := make([]byte, 0, len(raw)+2)
	quoted = append(append(append(quoted, '"'), raw...), '"')
	if err := json.Unmarshal(quoted, &value); err != nil {
		return "", "" // a bad escape: the decoder reports it
	}
	if strings.IndexByte(value, 0) >= 0 {
		return "", "must not contain NUL characters"
	}
	// Every U+FFFD in the value must be one the client sent, as the
	// character itself or as \ufffd; any other comes from an unpaired
	// surrogate escape that the decoder replaced.
	if n := strings.Count(value, "\uFFFD"); n > 0 {
		sent := bytes.Count(raw, []byte("\uFFFD")) + bytes.Count(bytes.ToLower(raw), []byte(`\ufffd`))
		if n > sent {
			return "", "must be valid UTF-8 (it holds an unpaired surrogate escape)"
		}
	}
	return value, ""
}

// maxFieldName bounds how much of a client's key an error repeats.
const maxFieldName = 64

// fieldName is path as errors name it: "body" for the whole body, and at
// most maxFieldName bytes of valid UTF-8 otherwise, so an error never
// repeats more than a short prefix of what the client sent.
func fieldName(path string) string {
	if path == "" {
		return "body"
	}
	return truncate(path, maxFieldName)
}

// truncate cuts s to at most n bytes of valid UTF-8, marking a cut with "…".
func truncate(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
