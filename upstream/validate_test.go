package upstream_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
)

func TestCheckNumber(t *testing.T) {
	for _, v := range []float64{0, -1, 1e15, -1e15, 5e-324, 123.456} {
		if err := upstream.CheckNumber("x", v); err != nil {
			t.Errorf("CheckNumber(%g) = %v", v, err)
		}
	}
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e297, -1.0000001e15} {
		err := upstream.CheckNumber("actual", v)
		if upstream.ErrorCode(err) != upstream.CodeInvalid || err.(*upstream.Error).Fields[0].Field != "actual" {
			t.Errorf("CheckNumber(%g) = %v, want invalid_input naming actual", v, err)
		}
	}
}

func TestCheckMetricNumbers(t *testing.T) {
	big := 2e15
	for _, tc := range []struct {
		name                    string
		initial, target, actual float64
		critical                *float64
		field                   string // "" = accepted
	}{
		{"ordinary", 0, 100, 50, nil, ""},
		{"at the bounds", -1e15, 1e15, 1e15, nil, ""},
		{"huge actual", 0, 100, 1e297, nil, "actual"},
		{"huge target", 0, 1e16, 1, nil, "target"},
		{"huge initial", -1e16, 0, 1, nil, "initialValue"},
		{"huge critical", 0, 1, 1, &big, "critical"},
		{"attainment overflow", 0, 1e-300, 1, nil, "blamed"},
		{"attainment beyond the bound", 0, 1e-3, 1e13, nil, "blamed"},
	} {
		err := upstream.CheckMetricNumbers("blamed", upstream.TypeDouble, upstream.AtLeast, tc.initial, tc.target, tc.actual, tc.critical)
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.field != "" && (upstream.ErrorCode(err) != upstream.CodeInvalid || err.(*upstream.Error).Fields[0].Field != tc.field):
			t.Errorf("%s: %v, want invalid_input naming %s", tc.name, err, tc.field)
		}
	}
}

func TestCheckText(t *testing.T) {
	for _, s := range []string{"", "plain", "ünïcødé ✓", "\uFFFD"} {
		if err := upstream.CheckText("name", s); err != nil {
			t.Errorf("CheckText(%q) = %v", s, err)
		}
	}
	for _, s := range []string{"a\x00b", "a\xffb", "\xed\xa0\x80"} {
		if err := upstream.CheckText("name", s); upstream.ErrorCode(err) != upstream.CodeInvalid {
			t.Errorf("CheckText(%q) = %v, want invalid_input", s, err)
		}
	}
}

func TestPreconditionCheck(t *testing.T) {
	tag := upstream.ETagOf([]byte("doc"))
	for _, tc := range []struct {
		ifMatch []string
		stored  string
		ok      bool
	}{
		{nil, tag, true},
		{nil, "", true},
		{[]string{tag}, tag, true},
		{[]string{`"x"`, tag}, tag, true},
		{[]string{"*"}, tag, true},
		{[]string{"*"}, "", false},
		{[]string{`"x"`}, tag, false},
		{[]string{"W/" + tag}, tag, false}, // strong comparison
		{[]string{tag}, "", false},
	} {
		p := &upstream.Precondition{Kind: upstream.KindGoal, ID: "g", IfMatch: tc.ifMatch}
		err := p.Check(tc.stored)
		if (err == nil) != tc.ok || err != nil && upstream.ErrorCode(err) != upstream.CodePreconditionFailed {
			t.Errorf("If-Match %v against %q: %v", tc.ifMatch, tc.stored, err)
		}
	}
	if upstream.ETagOf([]byte("a")) == upstream.ETagOf([]byte("b")) {
		t.Error("ETagOf collides")
	}
}

// TestCheckTextLimits: a string over its field's limit is refused naming
// its path, wherever it sits in an input; the limit counts characters, not
// bytes; a string at its limit passes.
func TestCheckTextLimits(t *testing.T) {
	type setting struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	}
	type input struct {
		Name        string         `json:"name"`
		Description *string        `json:"description,omitempty"`
		RichText    string         `json:"richTextDescription"`
		Comment     string         `json:"comment"`
		Settings    []setting      `json:"settings"`
		Extra       map[string]any `json:"extra"`
		Tags        []string       `json:"tags"`
		Raw         []byte         `json:"raw"`
		Nested      *struct {
			Title string `json:"title"`
		} `json:"nested"`
		skipped string
	}
	long := func(n int) string { return strings.Repeat("a", n) }
	ptr := func(s string) *string { return &s }
	ok := []input{
		{Name: long(upstream.MaxNameLength), Description: ptr(long(upstream.MaxDescriptionLength)), RichText: long(upstream.MaxRichTextLength),
			Comment: long(upstream.MaxCommentLength), Raw: make([]byte, 1<<20), skipped: long(1 << 20)},
		{Description: ptr(strings.Repeat("€", upstream.MaxDescriptionLength))}, // 60,000 bytes, 20,000 characters
	}
	for i, in := range ok {
		if err := upstream.CheckTextLimits(&in); err != nil {
			t.Errorf("input %d: %v", i, err)
		}
	}
	refused := []struct {
		in    any
		field string
	}{
		{input{Description: ptr(long(250000))}, "description"},
		{input{Name: long(upstream.MaxNameLength + 1)}, "name"},
		{input{Comment: long(upstream.MaxCommentLength + 1)}, "comment"},
		{input{RichText: long(upstream.MaxRichTextLength + 1)}, "richTextDescription"},
		{input{Settings: []setting{{}, {Value: long(upstream.MaxDescriptionLength + 1)}}}, "settings[1].value"},
		{input{Tags: []string{"x", long(upstream.MaxDescriptionLength + 1)}}, "tags[1]"},
		{input{Extra: map[string]any{"title": long(upstream.MaxNameLength + 1)}}, "extra.title"},
		{&input{Nested: &struct {
			Title string `json:"title"`
		}{long(upstream.MaxNameLength + 1)}}, "nested.title"},
		{map[string]any{"input": map[string]any{"description": long(upstream.MaxDescriptionLength + 1)}}, "input.description"},
	}
	for _, tt := range refused {
		err := upstream.CheckTextLimits(tt.in)
		var ue *upstream.Error
		if !errors.As(err, &ue) || ue.Code != upstream.CodeInvalid || len(ue.Fields) != 1 || ue.Fields[0].Field != tt.field ||
			!strings.Contains(ue.Fields[0].Message, "must be at most") {
			t.Errorf("%s: %v, want invalid_input naming %s", tt.field, err, tt.field)
		}
	}
}
