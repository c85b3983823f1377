// Package jsonpick copies chosen members of a JSON object without decoding
// it: the store reads whole documents from SQLite and keeps, of each, the
// members a listing decodes.
//
// SQLite can build the same object (json_object over doc->'key'), but it
// parses every document into its binary form first; with the pure-Go
// SQLite driver a level took 2.7× the time of reading the whole text and
// picking the members here (docs/decisions/tree-read-path.md, "Where a level's members are
// picked"). A general JSON library was slower still: it finds each key
// with a search of its own, where Append walks the object once.
package jsonpick

import (
	"bytes"
	"errors"
)

// ErrSyntax reports a document Append cannot walk: not a JSON object, cut
// short, or a key spelled with escapes. The caller decodes the whole
// document instead, which reports what is wrong with it, if anything.
var ErrSyntax = errors.New("jsonpick: not a plain JSON object")

// Append appends to dst a JSON object of the members of the object doc
// whose keys are in keys, in doc's order and spelled as in doc, and returns
// the extended buffer. Keys compare byte for byte; keys is small (a
// listing's few members), so a linear search beats a map.
//
// Append checks the structure it walks (strings, nesting, separators), not
// the values it copies: decoding the result checks those. It does not
// check the members it skips. It returns ErrSyntax, and dst as it was,
// when doc is not an object it can walk, including any key with a
// backslash (a key may be spelled with escapes, which a byte comparison
// would miss).
func Append(dst, doc []byte, keys []string) ([]byte, error) {
	start := len(dst)
	fail := func() ([]byte, error) { return dst[:start], ErrSyntax }
	i := skipSpace(doc, 0)
	if i >= len(doc) || doc[i] != '{' {
		return fail()
	}
	dst = append(dst, '{')
	first := true
	i = skipSpace(doc, i+1)
	if i < len(doc) && doc[i] == '}' {
		return append(dst, '}'), nil
	}
	for {
		if i >= len(doc) || doc[i] != '"' {
			return fail()
		}
		ks := i
		ke, ok := skipString(doc, i)
		if !ok {
			return fail()
		}
		key := doc[ks+1 : ke-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			return fail()
		}
		i = skipSpace(doc, ke)
		if i >= len(doc) || doc[i] != ':' {
			return fail()
		}
		vs := skipSpace(doc, i+1)
		ve, ok := skipValue(doc, vs)
		if !ok {
			return fail()
		}
		for _, k := range keys {
			if string(key) == k {
				if !first {
					dst = append(dst, ',')
				}
				first = false
				dst = append(dst, doc[ks:ke]...)
				dst = append(dst, ':')
				dst = append(dst, doc[vs:ve]...)
				break
			}
		}
		i = skipSpace(doc, ve)
		if i >= len(doc) {
			return fail()
		}
		switch doc[i] {
		case ',':
			i = skipSpace(doc, i+1)
		case '}':
			if skipSpace(doc, i+1) != len(doc) {
				return fail()
			}
			return append(dst, '}'), nil
		default:
			return fail()
		}
	}
}

// skipSpace returns the index of the first byte of b at or after i that is
// not JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string that starts with the
// quote at b[i].
func skipString(b []byte, i int) (int, bool) {
	i++
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return 0, false
		}
		i += j
		escapes := 0
		for k := i - 1; b[k] == '\\'; k-- {
			escapes++
		}
		i++
		if escapes%2 == 0 {
			return i, true
		}
	}
}

// skipValue returns the index just past the value that starts at b[i]. A
// number or literal ends at the first byte that may follow a value.
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				e, ok := skipString(b, i)
				if !ok {
					return 0, false
				}
				i = e
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return 0, false
	case ',', '}', ']', ':':
		return 0, false
	}
	start := i
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\n', '\t', '\r':
			return i, i > start
		}
		i++
	}
	return i, true
}
