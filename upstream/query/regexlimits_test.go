package query

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestRegexCostLimits: patterns whose compiled program is over
// MaxRegexProgram, filters with more than MaxRegexConditions regexes and
// filters whose programs sum to more than MaxRegexProgramTotal are refused
// with an *Error that names the limit; patterns people write pass.
func TestRegexCostLimits(t *testing.T) {
	heavy := `(?:a?){1000}a{1000}b` // 3,003 instructions: seconds over 250 KB
	orOf := func(n int, pattern string) string {
		var b strings.Builder
		b.WriteString(`{$or:[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{name:{$regex:%q}}`, pattern)
		}
		b.WriteString(`]}`)
		return b.String()
	}
	refused := []struct {
		name, src, msg string
	}{
		{"heavy pattern", `{name:{$regex:"` + heavy + `"}}`, "compiles to 3003 instructions; the limit is 100 per regular expression"},
		{"heavy pattern under $not", `{name:{$not:"` + heavy + `"}}`, "the limit is 100 per regular expression"},
		{"{100} pattern", `{name:{$regex:"(?:a?){100}a{100}b"}}`, "compiles to 303 instructions; the limit is 100"},
		{"20 heavy patterns under $or", orOf(20, heavy), "the limit is 100 per regular expression"},
		{"11 cheap patterns", orOf(MaxRegexConditions+1, "^Q3"), "more than 10 $regex conditions; the limit is 10 per filter"},
		{"200 cheap patterns", orOf(200, "a.*b"), "the limit is 10 per filter"},
		// The bound is on the program, not on what a pattern means: a long
		// literal is cheap to run but still counted.
		{"long literal", `{name:{$regex:"` + strings.Repeat("x", MaxRegexLen) + `"}}`, "compiles to 1002 instructions"},
		{"programs over the total", orOf(3, `\d{4}.{80}x`), "together; the limit is 200 per filter"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseFilter(testReg, tt.src)
			var qe *Error
			if !errors.As(err, &qe) {
				t.Fatalf("ParseFilter = %v, want *Error", err)
			}
			if qe.Param != "filter" || !strings.Contains(qe.Message, tt.msg) {
				t.Fatalf("ParseFilter error = %+v, want param filter and message containing %q", qe, tt.msg)
			}
		})
	}
	accepted := []string{
		`{name:{$regex:"^Q3"}}`,
		`{name:{$regex:"revenue|growth|retention",$options:"i"}}`,
		`{name:{$regex:"^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$"}}`,
		`{name:{$regex:"(?:a?){20}a{20}b"}}`,
		orOf(MaxRegexConditions, "^Q[1-4] "),
		`{name:{$regex:"` + strings.Repeat("x", MaxRegexProgram-10) + `"}}`,
	}
	for _, src := range accepted {
		if _, err := ParseFilter(testReg, src); err != nil {
			t.Errorf("ParseFilter(%.60s) = %v, want accepted", src, err)
		}
	}
}

// TestRegexpFuncProgramLimit: the SQL function refuses a pattern over
// MaxRegexProgram even when it does not come from ParseFilter.
func TestRegexpFuncProgramLimit(t *testing.T) {
	var f RegexpFunc
	if _, err := f.Call([]driver.Value{`(?:a?){1000}a{1000}b`, "aaa"}); err == nil {
		t.Fatal("regexp() accepted a 3,003-instruction pattern")
	}
	got, err := f.Call([]driver.Value{`^a+$`, "aaa"})
	if err != nil || got != int64(1) {
		t.Fatalf("regexp(^a+$, aaa) = %v, %v; want 1", got, err)
	}
}
