package query

import (
	"database/sql/driver"
	"fmt"
	"strings"
	"testing"
)

func TestTypeString(t *testing.T) {
	want := []string{"string", "number", "integer", "boolean", "datetime", "date", "id", "string[]", "object"}
	for i, w := range want {
		if got := Type(i).String(); got != w {
			t.Errorf("Type(%d).String() = %q, want %q", i, got, w)
		}
	}
	if got := Type(42).String(); got != "Type(42)" {
		t.Errorf("Type(42).String() = %q", got)
	}
}

func TestRegistry(t *testing.T) {
	if testReg.Resource() != "goals" {
		t.Errorf("Resource() = %q", testReg.Resource())
	}
	fields := testReg.Fields()
	if fields[0].Name != "id" || fields[len(fields)-1].Name != "metrics" {
		t.Errorf("Fields() not in declaration order: %v ... %v", fields[0].Name, fields[len(fields)-1].Name)
	}
	fields[0].Name = "changed"
	if f, _ := testReg.Field("id"); f.Name != "id" {
		t.Error("Fields() returned the registry's own slice")
	}
	if f, ok := testReg.Field("_id"); !ok || f.Name != "id" || f.Column != "id" {
		t.Errorf(`Field("_id") = %+v, %v`, f, ok)
	}
	if _, ok := testReg.Field("nope"); ok {
		t.Error(`Field("nope") found`)
	}
	if f, _ := metricsReg.Field("goal"); f.Sub != testReg {
		t.Error("SetSub did not wire metrics.goal")
	}
	var nilReg *Registry
	if _, ok := nilReg.Field("id"); ok {
		t.Error("nil registry has a field")
	}
	for name, want := range map[string]string{
		"ownerIds": "Owner ids", "closedStatus.status": "Closed status status", "id": "Id",
		"isActive": "Is active", "createdAt": "Created at",
	} {
		if f, _ := testReg.Field(name); f.Display != want {
			t.Errorf("Display of %q = %q, want %q", name, f.Display, want)
		}
	}
	r := NewRegistry("x", Field{Name: "parseURLPath", Type: String, Display: "Custom"}, Field{Name: "userID", Type: String})
	if f, _ := r.Field("parseURLPath"); f.Display != "Custom" {
		t.Errorf("explicit Display overwritten: %q", f.Display)
	}
	if f, _ := r.Field("userID"); f.Display != "User id" {
		t.Errorf("Display of userID = %q", f.Display)
	}
}

func TestNewRegistryPanics(t *testing.T) {
	tests := []struct {
		name   string
		fields []Field
		msg    string
	}{
		{"duplicate", []Field{{Name: "a"}, {Name: "a"}}, "duplicate field"},
		{"empty name", []Field{{Name: ""}}, "invalid field name"},
		{"quote in name", []Field{{Name: "a'b"}}, "invalid field name"},
		{"dollar", []Field{{Name: "$a"}}, "invalid field name"},
		{"leading dot", []Field{{Name: ".a"}}, "invalid field name"},
		{"double dot", []Field{{Name: "a..b"}}, "invalid field name"},
		{"_id", []Field{{Name: "_id"}}, "reserved"},
		{"bad type", []Field{{Name: "a", Type: Type(99)}}, "invalid type"},
		{"bad column", []Field{{Name: "a", Column: "a; drop"}}, "invalid column"},
		{"filterable object", []Field{{Name: "a", Type: Object, Filterable: true}}, "cannot be filterable"},
		{"sortable list", []Field{{Name: "a", Type: StringList, Sortable: true}}, "cannot be sortable"},
		{"sub on scalar", []Field{{Name: "a", Type: String, Sub: testReg}}, "not an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, tt.msg) {
					t.Fatalf("panic %v, want one containing %q", r, tt.msg)
				}
			}()
			NewRegistry("x", tt.fields...)
		})
	}
	t.Run("SetSub on scalar", func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Fatal("no panic")
			}
		}()
		NewRegistry("x", Field{Name: "a"}).SetSub("a", testReg)
	})
	// Valid corner cases do not panic.
	NewRegistry("x", Field{Name: "a_b.c1", Column: "t.a_b"}, Field{Name: "o", Type: Object, Sub: testReg})
}

func TestRegexpFunc(t *testing.T) {
	var f RegexpFunc
	tests := []struct {
		args []driver.Value
		want driver.Value
		err  bool
	}{
		{[]driver.Value{"^a", "abc"}, int64(1), false},
		{[]driver.Value{"^a", "bc"}, int64(0), false},
		{[]driver.Value{"(?i)^A", []byte("abc")}, int64(1), false},
		{[]driver.Value{"^a", nil}, nil, false},
		{[]driver.Value{nil, "a"}, nil, false},
		{[]driver.Value{"1", int64(1)}, int64(0), false},
		{[]driver.Value{"^a", "abc"}, int64(1), false}, // cached
		{[]driver.Value{"a(", "a"}, nil, true},
		{[]driver.Value{int64(1), "a"}, nil, true},
		{[]driver.Value{"a"}, nil, true},
	}
	for _, tt := range tests {
		got, err := f.Call(tt.args)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("Call(%v) = %v, %v; want %v, error %v", tt.args, got, err, tt.want, tt.err)
		}
	}
	for i := range maxCachedRegexps + 10 { // the cache stays bounded
		if _, err := f.Call([]driver.Value{fmt.Sprintf("a%d", i), "a"}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(f.cache); n > maxCachedRegexps {
		t.Errorf("cache holds %d patterns", n)
	}
}
