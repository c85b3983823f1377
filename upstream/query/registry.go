package query

import (
	"fmt"
	"strings"
	"unicode"
)

// Type is the data type of a field. It decides which filter values a field
// accepts, how they are normalised and how the field is read in SQL.
type Type int

const (
	String     Type = iota // JSON string
	Number                 // JSON number (float64)
	Integer                // JSON number, integral
	Bool                   // JSON true or false
	DateTime               // RFC 3339 string stored as "2006-01-02T15:04:05.000Z" (UTC, milliseconds); compared as strings
	Date                   // "yyyy-mm-dd" string
	ID                     // 24 lowercase hexadecimal characters
	StringList             // JSON array of strings (for example ownerIds); filters use array semantics
	Object                 // JSON object or array of objects: projectable only, never filtered or sorted
)

var typeNames = [...]string{
	String:     "string",
	Number:     "number",
	Integer:    "integer",
	Bool:       "boolean",
	DateTime:   "datetime",
	Date:       "date",
	ID:         "id",
	StringList: "string[]",
	Object:     "object",
}

// String returns the schema name of t: "string", "number", "integer",
// "boolean", "datetime", "date", "id", "string[]" or "object".
func (t Type) String() string {
	if t >= 0 && int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", int(t))
}

// textual reports whether values of t are JSON strings (or, for StringList,
// arrays of them), so that $regex applies.
func (t Type) textual() bool {
	switch t {
	case String, DateTime, Date, ID, StringList:
		return true
	}
	return false
}

// Field describes one field of a resource.
type Field struct {
	// Name is the JSON name exactly as the contract spells it; dotted for
	// nested scalars, e.g. "closedStatus.status". Only [A-Za-z0-9_.] is
	// allowed because names end up in SQL JSON paths.
	Name       string
	Type       Type
	Filterable bool
	Sortable   bool
	// Column is the SQL column when the field is stored in its own column
	// (e.g. "account_id"). "" means it lives in the JSON document column at
	// the path Name.
	Column string
	// Sub is the registry of the resource an Object field embeds (for
	// example goal.metrics → the metrics registry); nested projections are
	// validated against it.
	Sub *Registry
	// Display is the human name used in schemas. NewRegistry derives it
	// from Name when empty ("ownerIds" → "Owner ids").
	Display string
	// Description says what the field holds, one sentence for people
	// reading a schema (the GraphQL schema's field, filter and sort
	// descriptions come from it); set with Describe.
	Description string
}

// Registry is the set of fields of one resource. It is immutable after
// NewRegistry, except for SetSub during initialisation, and is then safe for
// concurrent use.
type Registry struct {
	resource string
	fields   []Field
	index    map[string]int
	// parents holds the object prefixes of dotted names ("closedStatus" for
	// "closedStatus.status"); they may be projected as a whole.
	parents map[string]bool
}

// NewRegistry returns the registry of resource with the given fields, in
// declaration order. It panics on programmer errors (duplicate or malformed
// names, invalid columns, Object fields declared filterable or sortable,
// StringList fields declared sortable, Sub on a non-Object field), since
// registries are built at package initialisation from literals.
func NewRegistry(resource string, fields ...Field) *Registry {
	r := &Registry{
		resource: resource,
		fields:   make([]Field, 0, len(fields)),
		index:    make(map[string]int, len(fields)),
		parents:  make(map[string]bool),
	}
	for _, f := range fields {
		if !validName(f.Name) {
			panic(fmt.Sprintf("query: registry %q: invalid field name %q", resource, f.Name))
		}
		if f.Name == "_id" {
			panic(fmt.Sprintf("query: registry %q: %q is reserved as an alias of \"id\"", resource, f.Name))
		}
		if _, dup := r.index[f.Name]; dup {
			panic(fmt.Sprintf("query: registry %q: duplicate field %q", resource, f.Name))
		}
		if f.Type < String || f.Type > Object {
			panic(fmt.Sprintf("query: registry %q: field %q has invalid type %d", resource, f.Name, int(f.Type)))
		}
		if f.Column != "" && !validColumn(f.Column) {
			panic(fmt.Sprintf("query: registry %q: field %q has invalid column %q", resource, f.Name, f.Column))
		}
		if f.Type == Object && (f.Filterable || f.Sortable) {
			panic(fmt.Sprintf("query: registry %q: object field %q cannot be filterable or sortable", resource, f.Name))
		}
		if f.Type == StringList && f.Sortable {
			panic(fmt.Sprintf("query: registry %q: list field %q cannot be sortable", resource, f.Name))
		}
		if f.Sub != nil && f.Type != Object {
			panic(fmt.Sprintf("query: registry %q: field %q has Sub but is not an object", resource, f.Name))
		}
		if f.Display == "" {
			f.Display = displayName(f.Name)
		}
		r.index[f.Name] = len(r.fields)
		r.fields = append(r.fields, f)
		for i := strings.IndexByte(f.Name, '.'); i >= 0; {
			r.parents[f.Name[:i]] = true
			j := strings.IndexByte(f.Name[i+1:], '.')
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	return r
}

// Resource returns the resource name the registry was created with.
func (r *Registry) Resource() string { return r.resource }

// Fields returns a copy of the fields in declaration order.
func (r *Registry) Fields() []Field {
	return append([]Field(nil), r.fields...)
}

// Field returns the field called name. "_id" is an alias of "id".
func (r *Registry) Field(name string) (Field, bool) {
	if r == nil {
		return Field{}, false
	}
	i, ok := r.index[canonicalName(name)]
	if !ok {
		return Field{}, false
	}
	return r.fields[i], true
}

// SetSub sets the embedded registry of the Object field name, to wire nested
// or cyclic registries after creation. It must be called during
// initialisation, before the registry is used, and panics if name is not an
// Object field of r.
func (r *Registry) SetSub(name string, sub *Registry) {
	i, ok := r.index[canonicalName(name)]
	if !ok || r.fields[i].Type != Object {
		panic(fmt.Sprintf("query: registry %q: SetSub on %q, which is not an object field", r.resource, name))
	}
	r.fields[i].Sub = sub
}

// Describe sets the descriptions of the fields named in docs. Like SetSub
// it must be called during initialisation; it panics on a name that is no
// field of r, so a renamed field cannot keep a stale description.
func (r *Registry) Describe(docs map[string]string) {
	for name, text := range docs {
		i, ok := r.index[canonicalName(name)]
		if !ok {
			panic(fmt.Sprintf("query: registry %q: Describe on %q, which is no field", r.resource, name))
		}
		r.fields[i].Description = text
	}
}

// canonicalName maps the Mongo alias "_id" to "id".
func canonicalName(name string) string {
	if name == "_id" {
		return "id"
	}
	return name
}

// validName reports whether name is made of non-empty [A-Za-z0-9_] segments
// separated by single dots.
func validName(name string) bool {
	if name == "" || name[0] == '.' || name[len(name)-1] == '.' || strings.Contains(name, "..") {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(isIdentByte(c) || c == '.') {
			return false
		}
	}
	return true
}

// validColumn reports whether col is a plain SQL identifier, optionally
// qualified by one table name.
func validColumn(col string) bool {
	for _, part := range strings.SplitN(col, ".", 2) {
		if part == "" || (part[0] >= '0' && part[0] <= '9') {
			return false
		}
		for i := 0; i < len(part); i++ {
			if !isIdentByte(part[i]) {
				return false
			}
		}
	}
	return true
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// displayName derives a human name from a JSON name: camel-case words and
// dotted segments become lower-case words, the first one capitalised.
// "ownerIds" → "Owner ids", "closedStatus.status" → "Closed status status".
func displayName(name string) string {
	var words []string
	for _, seg := range strings.Split(name, ".") {
		start := 0
		rs := []rune(seg)
		for i := 1; i < len(rs); i++ {
			// A word starts at an upper-case letter that follows a lower-case
			// letter or digit, or that begins a capitalised word after an
			// acronym ("URLPath" → "url path").
			if unicode.IsUpper(rs[i]) && (!unicode.IsUpper(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
				words = append(words, string(rs[start:i]))
				start = i
			}
		}
		words = append(words, string(rs[start:]))
	}
	for i, w := range words {
		words[i] = strings.ToLower(strings.Trim(w, "_"))
	}
	s := strings.Join(words, " ")
	if s == "" {
		return name
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}
