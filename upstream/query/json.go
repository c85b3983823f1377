package query

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Error is a client error in a list query; callers map it to HTTP 400.
type Error struct {
	Param   string // the query parameter: "filter", "sort", "fields", "skip", "limit"
	Field   string // the offending field, if any
	Message string // human message, e.g. `unknown field "nmae"`
}

// Error returns "invalid <param>: <message>".
func (e *Error) Error() string {
	return "invalid " + e.Param + ": " + e.Message
}

// errorf returns a *Error for param and field with a formatted message.
func errorf(param, field, format string, args ...any) *Error {
	return &Error{Param: param, Field: field, Message: fmt.Sprintf(format, args...)}
}

// Limits of the filter language. They bound the work a single request can
// cause in the parser, the SQL planner and the regexp engine.
//
// RE2 runs in time linear in its input, but the constant is the size of
// the compiled program: matching costs up to (instructions × bytes of
// text), about 5–35 ns each. (?:a?){1000}a{1000}b compiles to 3,003
// instructions and takes seconds over a 250 KB description, per row. The
// regular-expression limits therefore bound the program of each pattern
// and the sum over a filter, so that one row costs at most
// MaxRegexProgramTotal × the row's text, and the read deadline of the
// facades stops a scan between rows.
const (
	MaxFilterLen         = 16 << 10 // bytes of filter source
	MaxFilterDepth       = 10       // nesting of JSON objects and arrays
	MaxFilterNodes       = 500      // conditions and logical operators in one filter
	MaxInValues          = 1000     // elements of one $in or $nin array
	MaxRegexLen          = 1000     // bytes of one regular expression
	MaxRegexProgram      = 100      // instructions of one compiled regular expression
	MaxRegexProgramTotal = 200      // instructions of all regular expressions of one filter
	MaxRegexConditions   = 10       // $regex conditions (and $not regexes) in one filter
)

// jkind is the kind of a relaxed-JSON value.
type jkind int

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

func (k jkind) String() string {
	return [...]string{"null", "boolean", "number", "string", "array", "object"}[k]
}

// jvalue is a parsed relaxed-JSON value. Objects keep their members in source
// order so that error messages and the canonical form are deterministic.
type jvalue struct {
	kind jkind
	b    bool
	n    float64
	s    string
	arr  []*jvalue
	obj  []jmember
}

type jmember struct {
	key string
	val *jvalue
}

// jparser parses relaxed JSON: standard JSON plus unquoted object keys
// ([A-Za-z_$][A-Za-z0-9_$.]*) and single-quoted strings. Trailing commas,
// comments and bare-word values other than true, false and null are
// rejected, and so are duplicate keys in one object.
type jparser struct {
	src   string
	pos   int
	depth int
}

// parseRelaxedJSON parses src as one relaxed-JSON value; errors are *Error
// with Param "filter".
func parseRelaxedJSON(src string) (*jvalue, error) {
	if !utf8.ValidString(src) {
		return nil, errorf("filter", "", "filter is not valid UTF-8")
	}
	p := &jparser{src: src}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.src) {
		return nil, p.errorf("unexpected %s after the end of the filter", p.describe())
	}
	return v, nil
}

func (p *jparser) errorf(format string, args ...any) *Error {
	return errorf("filter", "", "syntax error at offset %d: %s", p.pos, fmt.Sprintf(format, args...))
}

// describe names the token at the current position for error messages.
func (p *jparser) describe() string {
	if p.pos >= len(p.src) {
		return "end of input"
	}
	r, _ := utf8.DecodeRuneInString(p.src[p.pos:])
	return strconv.QuoteRune(r)
}

func (p *jparser) skipSpace() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jparser) value() (*jvalue, error) {
	p.skipSpace()
	if p.pos >= len(p.src) {
		return nil, p.errorf("unexpected end of input, want a value")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"' || c == '\'':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &jvalue{kind: jString, s: s}, nil
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case isKeyStart(c):
		start := p.pos
		word := p.bareWord()
		switch word {
		case "true":
			return &jvalue{kind: jBool, b: true}, nil
		case "false":
			return &jvalue{kind: jBool}, nil
		case "null":
			return &jvalue{kind: jNull}, nil
		}
		p.pos = start
		return nil, p.errorf("unexpected word %q, want a value (strings must be quoted)", word)
	default:
		return nil, p.errorf("unexpected %s, want a value", p.describe())
	}
}

func (p *jparser) enter() error {
	p.depth++
	if p.depth > MaxFilterDepth {
		return errorf("filter", "", "filter is nested deeper than %d levels", MaxFilterDepth)
	}
	return nil
}

func (p *jparser) object() (*jvalue, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.pos++ // '{'
	v := &jvalue{kind: jObject}
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		p.depth--
		return v, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.src) {
			return nil, p.errorf("unexpected end of input, want a key")
		}
		var key string
		switch c := p.src[p.pos]; {
		case c == '"' || c == '\'':
			s, err := p.str()
			if err != nil {
				return nil, err
			}
			key = s
		case isKeyStart(c):
			key = p.bareWord()
		default:
			return nil, p.errorf("unexpected %s, want a key", p.describe())
		}
		for _, m := range v.obj {
			if m.key == key {
				field := key
				if strings.HasPrefix(key, "$") {
					field = "" // an operator, not a field
				}
				return nil, errorf("filter", field, "duplicate key %q in one object (combine conditions with $and)", key)
			}
		}
		p.skipSpace()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.errorf("unexpected %s, want ':' after key %q", p.describe(), key)
		}
		p.pos++
		val, err := p.value()
		if err != nil {
			return nil, err
		}
		v.obj = append(v.obj, jmember{key: key, val: val})
		p.skipSpace()
		if p.pos >= len(p.src) {
			return nil, p.errorf("unexpected end of input, want ',' or '}'")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			p.depth--
			return v, nil
		default:
			return nil, p.errorf("unexpected %s, want ',' or '}'", p.describe())
		}
	}
}

func (p *jparser) array() (*jvalue, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.pos++ // '['
	v := &jvalue{kind: jArray}
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		p.depth--
		return v, nil
	}
	for {
		el, err := p.value()
		if err != nil {
			return nil, err
		}
		v.arr = append(v.arr, el)
		p.skipSpace()
		if p.pos >= len(p.src) {
			return nil, p.errorf("unexpected end of input, want ',' or ']'")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			p.depth--
			return v, nil
		default:
			return nil, p.errorf("unexpected %s, want ',' or ']'", p.describe())
		}
	}
}

func isKeyStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// bareWord consumes an unquoted key or literal.
func (p *jparser) bareWord() string {
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if !(isKeyStart(c) || c >= '0' && c <= '9' || c == '.') {
			break
		}
		p.pos++
	}
	return p.src[start:p.pos]
}

// str consumes a double- or single-quoted string with JSON escapes (plus \'
// in either form).
func (p *jparser) str() (string, error) {
	quote := p.src[p.pos]
	start := p.pos
	p.pos++
	var b strings.Builder
	for {
		if p.pos >= len(p.src) {
			p.pos = start
			return "", p.errorf("unterminated string")
		}
		c := p.src[p.pos]
		switch {
		case c == quote:
			p.pos++
			return b.String(), nil
		case c < 0x20:
			return "", p.errorf("control character in string")
		case c != '\\':
			b.WriteByte(c)
			p.pos++
			continue
		}
		// Escape sequence.
		p.pos++
		if p.pos >= len(p.src) {
			p.pos = start
			return "", p.errorf("unterminated string")
		}
		e := p.src[p.pos]
		p.pos++
		switch e {
		case '"', '\'', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", p.errorf("invalid \\u escape")
			}
			if utf16.IsSurrogate(r) {
				// Combine a surrogate pair; a lone surrogate becomes U+FFFD
				// as in encoding/json.
				save := p.pos
				if p.pos+1 < len(p.src) && p.src[p.pos] == '\\' && p.src[p.pos+1] == 'u' {
					p.pos += 2
					if r2, ok := p.hex4(); ok {
						if c := utf16.DecodeRune(r, r2); c != utf8.RuneError {
							b.WriteRune(c)
							break
						}
					}
				}
				p.pos = save
				r = utf8.RuneError
			}
			b.WriteRune(r)
		default:
			p.pos -= 2
			return "", p.errorf("invalid escape sequence in string")
		}
	}
}

func (p *jparser) hex4() (rune, bool) {
	if p.pos+4 > len(p.src) {
		return 0, false
	}
	n, err := strconv.ParseUint(p.src[p.pos:p.pos+4], 16, 32)
	if err != nil {
		return 0, false
	}
	p.pos += 4
	return rune(n), true
}

// number consumes a JSON number and decodes it as float64.
func (p *jparser) number() (*jvalue, error) {
	start := p.pos
	digits := func() int {
		n := 0
		for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.src[p.pos] == '-' {
		p.pos++
	}
	intStart := p.pos
	if digits() == 0 {
		return nil, p.errorf("invalid number")
	}
	if p.src[intStart] == '0' && p.pos-intStart > 1 {
		p.pos = start
		return nil, p.errorf("invalid number: leading zero")
	}
	if p.pos < len(p.src) && p.src[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.errorf("invalid number: want digits after '.'")
		}
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.errorf("invalid number: want digits in exponent")
		}
	}
	text := p.src[start:p.pos]
	n, err := strconv.ParseFloat(text, 64)
	if err != nil {
		p.pos = start
		return nil, p.errorf("number %s is out of range", text)
	}
	return &jvalue{kind: jNumber, n: n}, nil
}
