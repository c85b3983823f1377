package query

import (
	"database/sql/driver"
	"fmt"
	"regexp"
	"regexp/syntax"
	"sync"
)

// RegexpFunc implements the SQL function regexp(pattern, value) that SQLite
// filters use for $regex, with the semantics Match uses: a NULL or
// non-string value never matches (the result is NULL or 0), otherwise the
// result is 1 or 0. Compiled patterns are cached. The zero value is ready to
// use and safe for concurrent use; register one per process, e.g. with
// modernc.org/sqlite:
//
//	var re query.RegexpFunc
//	sqlite.MustRegisterDeterministicScalarFunction("regexp", 2,
//		func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) { return re.Call(args) })
type RegexpFunc struct {
	mu    sync.Mutex
	cache map[string]*regexp.Regexp
}

// maxCachedRegexps bounds the cache of a RegexpFunc; it is reset when full.
const maxCachedRegexps = 256

// Call evaluates regexp(args[0], args[1]).
func (f *RegexpFunc) Call(args []driver.Value) (driver.Value, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("regexp: want 2 arguments, got %d", len(args))
	}
	var pattern string
	switch p := args[0].(type) {
	case string:
		pattern = p
	case []byte:
		pattern = string(p)
	case nil:
		return nil, nil
	default:
		return nil, fmt.Errorf("regexp: pattern must be text, got %T", args[0])
	}
	var s string
	switch v := args[1].(type) {
	case string:
		s = v
	case []byte:
		s = string(v)
	case nil:
		return nil, nil
	default:
		return int64(0), nil
	}
	re, err := f.compile(pattern)
	if err != nil {
		return nil, err
	}
	if re.MatchString(s) {
		return int64(1), nil
	}
	return int64(0), nil
}

func (f *RegexpFunc) compile(pattern string) (*regexp.Regexp, error) {
	f.mu.Lock()
	re, ok := f.cache[pattern]
	f.mu.Unlock()
	if ok {
		return re, nil
	}
	if len(pattern) > MaxRegexLen+len("(?i)") {
		return nil, fmt.Errorf("regexp: pattern longer than %d bytes", MaxRegexLen)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("regexp: %w", err)
	}
	// Filters are checked when parsed; this holds for any other caller.
	if n, err := regexProgram(pattern); err != nil || n > MaxRegexProgram {
		return nil, fmt.Errorf("regexp: pattern compiles to more than %d instructions", MaxRegexProgram)
	}
	f.mu.Lock()
	if f.cache == nil || len(f.cache) >= maxCachedRegexps {
		f.cache = make(map[string]*regexp.Regexp)
	}
	f.cache[pattern] = re
	f.mu.Unlock()
	return re, nil
}

// regexProgram returns the number of instructions of the program Go's
// regexp package compiles pattern to, the factor by which matching a text
// costs more than reading it (see MaxRegexProgram). It parses as
// regexp.Compile does (syntax.Perl, then Simplify), so the count is that of
// the program that runs.
func regexProgram(pattern string) (int, error) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return 0, err
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return 0, err
	}
	return len(prog.Inst), nil
}
