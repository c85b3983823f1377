package rest

import (
	"encoding/json"
	"strings"
)

// PlainText turns the mentions markup of a text field into plain text: every
// well-formed mention `@[<name>:<email>:<user_id>]` becomes `@<name>`.
// Names may contain spaces (and colons: the email and the id are the last
// two colon-separated parts). Malformed markup — no closing bracket, fewer
// than three parts, an empty name, an email without "@" or with blanks, an
// id with characters other than [A-Za-z0-9_-] — is left as it is.
func PlainText(s string) string {
	if !strings.Contains(s, "@[") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for {
		i := strings.Index(s, "@[")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		rest := s[i+2:]
		end := strings.IndexByte(rest, ']')
		if end >= 0 {
			if name, ok := parseMention(rest[:end]); ok {
				b.WriteByte('@')
				b.WriteString(name)
				s = rest[end+1:]
				continue
			}
		}
		// Not a mention: keep "@" and rescan from the "[" so that a
		// mention starting inside it is still found.
		b.WriteByte('@')
		s = s[i+1:]
	}
}

// parseMention parses the inside of `@[...]` and returns the name.
func parseMention(m string) (string, bool) {
	if strings.ContainsAny(m, "[\n\r") {
		return "", false
	}
	j := strings.LastIndexByte(m, ':')
	if j < 0 {
		return "", false
	}
	id := m[j+1:]
	k := strings.LastIndexByte(m[:j], ':')
	if k < 0 {
		return "", false
	}
	email, name := m[k+1:j], m[:k]
	if strings.TrimSpace(name) == "" || !validMentionID(id) || !validEmail(email) {
		return "", false
	}
	return name, true
}

func validMentionID(id string) bool {
	if id == "" {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func validEmail(e string) bool {
	at := strings.IndexByte(e, '@')
	return at > 0 && at < len(e)-1 && !strings.ContainsAny(e, " \t")
}

// textFields are the JSON names of text fields that carry mentions markup,
// at any depth (embedded key results, last comments, ...).
var textFields = map[string]bool{
	"description":         true,
	"richTextDescription": true,
	"comment":             true,
	"goalDescription":     true,
	"text":                true,
	"richTextComment":     true,
}

// plainTextJSON applies PlainText to the text fields of a decoded JSON value,
// in place, at every depth.
func plainTextJSON(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && textFields[k] {
				x[k] = PlainText(s)
				continue
			}
			plainTextJSON(e)
		}
	case []any:
		for _, e := range x {
			plainTextJSON(e)
		}
	}
}

// shaped is a handler result to be projected and/or formatted before it is
// encoded. list says v is a {items, ...} page whose items are shaped.
type shaped struct {
	v    any
	view view
	list bool
}

// render returns v as the client asked to see it: unchanged when the view
// neither projects nor formats, else re-encoded through a generic JSON value
// with the projection applied to the object (or to each item of a list) and
// mentions turned to plain text.
func render(v any, vw view, list bool) (any, error) {
	if !vw.hasProj && !vw.plain {
		return v, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	if vw.plain {
		plainTextJSON(doc)
	}
	if !vw.hasProj {
		return doc, nil
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return doc, nil
	}
	if !list {
		return vw.proj.Apply(obj), nil
	}
	items, _ := obj["items"].([]any)
	for i, it := range items {
		if m, ok := it.(map[string]any); ok {
			items[i] = vw.proj.Apply(m)
		}
	}
	return obj, nil
}
