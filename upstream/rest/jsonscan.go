package rest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/okrgate/okrgate/upstream"
)

// scanJSON makes one token-level pass over a request body before it is
// decoded, refusing what encoding/json would accept silently:
//   - a key given twice in one object (encoding/json keeps the last), and
//     two keys that differ only in case (encoding/json matches field names
//     case-insensitively, so they name the same field);
//   - a string that is not valid UTF-8 or holds an unpaired surrogate escape
//     (encoding/json replaces both with U+FFFD);
//   - a string holding a NUL character (raw NUL bytes are already invalid
//     JSON; this catches the \u0000 escape).
//
// Each refusal is an invalid_input error naming the field by its path
// ("settings.goalsPerOwnerLimit", "ownerIds[2]"). Syntax errors are left to
// the decoder, which reports them with their offset. encoding/json/jsontext
// would report duplicates itself, but Go 1.26 ships it only behind
// GOEXPERIMENT=jsonv2, so the pass is written on encoding/json's tokenizer.
func scanJSON(body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	type frame struct {
		path   string
		object bool
		keys   map[string]bool // folded keys seen (objects)
		key    string          // the current key (objects)
		next   int             // the next element index (arrays)
		inKey  bool            // an object expects a key next
	}
	var stack []*frame
	// child returns the path of the value about to be read in the frame on
	// top of the stack, and marks it read.
	child := func() string {
		if len(stack) == 0 {
			return ""
		}
		f := stack[len(stack)-1]
		if f.object {
			f.inKey = true
			return joinPath(f.path, f.key)
		}
		f.next++
		return fmt.Sprintf("%s[%d]", f.path, f.next-1)
	}
	var prev int64
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return nil // syntax: the decoder reports it
		}
		end := dec.InputOffset()
		raw := body[prev:end]
		prev = end
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				path := child()
				stack = append(stack, &frame{path: path, object: d == '{', inKey: true, keys: map[string]bool{}})
			default:
				stack = stack[:len(stack)-1]
			}
			continue
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.inKey {
			key := tok.(string)
			if err := checkString(top.path, raw, key); err != nil {
				return upstream.Invalid(fieldName(top.path), "has a key that %s", err.Fields[0].Message)
			}
			folded := strings.ToLower(key)
			if top.keys[folded] {
				return upstream.Invalid(fieldName(joinPath(top.path, key)), "is given more than once; give each field once")
			}
			top.keys[folded] = true
			top.key, top.inKey = key, false
			continue
		}
		path := child()
		if s, ok := tok.(string); ok {
			if err := checkString(path, raw, s); err != nil {
				return err
			}
		}
	}
}

// checkString checks one string token: its raw bytes (with whatever
// delimiters and blanks precede it, all ASCII) and its decoded value.
func checkString(path string, raw []byte, s string) *upstream.Error {
	field := fieldName(path)
	if !utf8.Valid(raw) {
		return upstream.Invalid(field, "must be valid UTF-8")
	}
	if strings.IndexByte(s, 0) >= 0 {
		return upstream.Invalid(field, "must not contain NUL characters")
	}
	// Every U+FFFD in the value must be one the client sent, as the
	// character itself or as \ufffd; any other comes from an unpaired
	// surrogate escape that the decoder replaced.
	if n := strings.Count(s, "\uFFFD"); n > 0 {
		sent := bytes.Count(raw, []byte("\uFFFD")) + bytes.Count(bytes.ToLower(raw), []byte(`\ufffd`))
		if n > sent {
			return upstream.Invalid(field, "must be valid UTF-8 (it holds an unpaired surrogate escape)")
		}
	}
	return nil
}

// maxFieldName bounds how much of a client's key an error repeats.
const maxFieldName = 64

// joinPath appends key to an object path.
func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

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
