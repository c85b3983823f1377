package jsonpick

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func TestAppend(t *testing.T) {
	keys := []string{"id", "goalId", "ownerIds"}
	for _, c := range []struct{ doc, want string }{
		{`{"id":"a","name":"x","goalId":"g"}`, `{"id":"a","goalId":"g"}`},
		{` { "name" : "x" , "id" : "a" } `, `{"id":"a"}`},
		{`{}`, `{}`},
		{`{"name":"no"}`, `{}`},
		{`{"ownerIds":["a","b"],"id":null}`, `{"ownerIds":["a","b"],"id":null}`},
		{`{"x":{"id":"inner","y":[1,{"z":"}]"}]},"id":"outer"}`, `{"id":"outer"}`},
		{`{"s":"quote \" and \\","id":"q\"\\"}`, `{"id":"q\"\\"}`},
		{`{"n":-1.5e3,"t":true,"f":false,"id":12}`, `{"id":12}`},
		{"{\"id\":\t\"a\"\n}", `{"id":"a"}`},
		{`{"id":"a","id":"b"}`, `{"id":"a","id":"b"}`}, // decoding keeps the last, as for the whole
	} {
		got, err := Append([]byte("prefix"), []byte(c.doc), keys)
		if err != nil || string(got) != "prefix"+c.want {
			t.Errorf("Append(%s) = %s, %v; want prefix%s", c.doc, got, err, c.want)
		}
	}
	for _, doc := range []string{
		``, `[]`, `"id"`, `null`, `{`, `{"id"`, `{"id":}`, `{"id":"a"`, `{"id":"a",}`, `{"id":"a"}x`,
		`{"id" "a"}`, `{"id":"a" "b":1}`, `{"x":[1,2}`, `{"x":"unterminated}`, `{id:"a"}`,
		`{"i\u0064":"a"}`, // an escaped key: the whole document is decoded instead
	} {
		got, err := Append([]byte("prefix"), []byte(doc), keys)
		if !errors.Is(err, ErrSyntax) || string(got) != "prefix" {
			t.Errorf("Append(%q) = %q, %v; want prefix, ErrSyntax", doc, got, err)
		}
	}
}

// FuzzAppend: for every JSON object, decoding what Append picks gives the
// members of the whole object under those keys, as encoding/json decodes
// them; for anything else it never panics.
func FuzzAppend(f *testing.F) {
	for _, s := range []string{
		`{"id":"a","name":"x","goalId":"g","ownerIds":["u1","u2"],"format":{"id":"not me"}}`,
		`{"id":"\u00e9\n\"","x":[[],{},"]"],"goalId":1e-7,"ownerIds":null}`,
		` {"goalId" : true , "id":false} `,
		`{"x":"\\","id":"\\\\\""}`,
	} {
		f.Add(s)
	}
	keys := []string{"id", "goalId", "ownerIds"}
	f.Fuzz(func(t *testing.T, doc string) {
		got, err := Append(nil, []byte(doc), keys)
		var whole map[string]any
		if json.Unmarshal([]byte(doc), &whole) != nil || whole == nil {
			return // not an object: any answer but a panic
		}
		if err != nil {
			if !escaped(doc) {
				t.Fatalf("Append(%s): %v for a JSON object", doc, err)
			}
			return
		}
		var picked map[string]any
		if err := json.Unmarshal(got, &picked); err != nil {
			t.Fatalf("Append(%s) = %s: %v", doc, got, err)
		}
		want := map[string]any{}
		for _, k := range keys {
			if v, ok := whole[k]; ok {
				want[k] = v
			}
		}
		if !reflect.DeepEqual(picked, want) {
			t.Fatalf("Append(%s) = %s, want the members %v", doc, got, want)
		}
	})
}

// escaped reports whether doc has a backslash, which Append refuses in keys.
func escaped(doc string) bool {
	for i := range len(doc) {
		if doc[i] == '\\' {
			return true
		}
	}
	return false
}
