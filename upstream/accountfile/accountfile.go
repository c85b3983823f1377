// Package accountfile reads and writes the portable file of one account:
// what okrgate export writes and okrgate import reads, from and into any
// store (SQLite, PostgreSQL, Citus).
//
// The file is JSON Lines. The first line is the Header: the format and its
// version, the account, and every table's columns. Each following line is
// one row of one table, {"t": table, "r": [values in the header's column
// order]}. The last line is the Trailer, {"end": {table: rows, ...}}, so a
// file cut short is told from a whole one. A value is a JSON string, number,
// boolean or null, or {"b64": "..."} for binary data (an avatar's bytes).
//
// A Reader checks the file as it goes and names the line where it broke;
// the rules of what a row may say (its account, the ids it names) are the
// importer's.
package accountfile

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
)

// Format is the value of the header's "format" field.
const Format = "okrgate-account"

// Version is the version of the format this package writes. A reader
// refuses files of a newer version.
const Version = 1

// Header is the first line of a file.
type Header struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Account is the id of the account the file holds.
	Account string `json:"account"`
	// Exported is when the file was written (RFC 3339), and Source the
	// kind of store it was read from ("sqlite", "postgres").
	Exported string `json:"exported"`
	Source   string `json:"source"`
	// Tables maps each table of the file to its columns, in the order of
	// every row's values.
	Tables map[string][]string `json:"tables"`
	// Omitted says what the file leaves out and why (e.g. API tokens
	// without --include-tokens), for the importer to report.
	Omitted []string `json:"omitted,omitempty"`
}

// Row is one row of one table: its values in the order of the header's
// columns for the table.
type Row struct {
	Table  string
	Values []any
	// Line is the row's line in the file (1 is the header), set by Reader.
	Line int
}

// Blob is the file's form of binary data.
type Blob struct {
	B64 string `json:"b64"`
}

type rowLine struct {
	T string            `json:"t"`
	R []json.RawMessage `json:"r"`
}

type trailerLine struct {
	End map[string]int `json:"end"`
}

// Writer writes a file: the header first, then rows, then Close writes the
// trailer. It buffers its output; nothing is complete until Close.
type Writer struct {
	w      *bufio.Writer
	cols   map[string]int
	counts map[string]int
	line   []byte
	closed bool
}

// NewWriter writes h to w and returns a Writer for the rows.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	h.Format, h.Version = Format, Version
	b, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("accountfile: header: %w", err)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(b)
	bw.WriteByte('\n')
	cols := make(map[string]int, len(h.Tables))
	for t, cs := range h.Tables {
		cols[t] = len(cs)
	}
	return &Writer{w: bw, cols: cols, counts: map[string]int{}}, nil
}

// Write writes one row of table. Its values are strings, int64, float64,
// bool, []byte or nil, as many as the table has columns in the header.
func (w *Writer) Write(table string, values []any) error {
	n, ok := w.cols[table]
	if !ok {
		return fmt.Errorf("accountfile: table %s is not in the header", table)
	}
	if len(values) != n {
		return fmt.Errorf("accountfile: a row of %s has %d values, the header %d columns", table, len(values), n)
	}
	b := append(w.line[:0], `{"t":`...)
	b = appendJSON(b, table)
	b = append(b, `,"r":[`...)
	for i, v := range values {
		if i > 0 {
			b = append(b, ',')
		}
		switch v := v.(type) {
		case []byte:
			b = append(b, `{"b64":"`...)
			b = base64.StdEncoding.AppendEncode(b, v)
			b = append(b, `"}`...)
		case nil, string, int64, float64, bool:
			b = appendJSON(b, v)
		default:
			return fmt.Errorf("accountfile: a value of %s has type %T", table, v)
		}
	}
	b = append(b, "]}\n"...)
	w.line = b
	w.counts[table]++
	_, err := w.w.Write(b)
	return err
}

func appendJSON(b []byte, v any) []byte {
	j, _ := json.Marshal(v) // strings, numbers, booleans and nil always marshal
	return append(b, j...)
}

// Counts returns how many rows of each table were written so far.
func (w *Writer) Counts() map[string]int { return maps.Clone(w.counts) }

// Close writes the trailer and flushes the file.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	b, err := json.Marshal(trailerLine{End: w.counts})
	if err != nil {
		return err
	}
	w.w.Write(b)
	w.w.WriteByte('\n')
	return w.w.Flush()
}

// Reader reads a file: the header on creation, then rows until io.EOF,
// which it returns only after a trailer that agrees with the rows read.
type Reader struct {
	sc     *bufio.Scanner
	h      Header
	line   int
	counts map[string]int
	done   bool
}

// LineError is a fault of the file at a line.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// ErrNewer is the error for a file of a newer format version than this
// binary reads.
var ErrNewer = errors.New("the file was written by a newer okrgate")

// maxLine bounds one line of a file (a row with an avatar's bytes in it).
const maxLine = 16 << 20

// NewReader reads and checks the header of the file in r.
func NewReader(r io.Reader) (*Reader, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	rd := &Reader{sc: sc, counts: map[string]int{}}
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, &LineError{1, err}
		}
		return nil, &LineError{1, errors.New("the file is empty")}
	}
	rd.line = 1
	if err := json.Unmarshal(sc.Bytes(), &rd.h); err != nil || rd.h.Format != Format {
		return nil, &LineError{1, fmt.Errorf("not an okrgate account file (its first line must be a header with \"format\": %q)", Format)}
	}
	if rd.h.Version > Version || rd.h.Version < 1 {
		return nil, &LineError{1, fmt.Errorf("%w: format version %d, this binary reads version %d", ErrNewer, rd.h.Version, Version)}
	}
	if rd.h.Account == "" {
		return nil, &LineError{1, errors.New("the header names no account")}
	}
	for _, t := range slices.Sorted(maps.Keys(rd.h.Tables)) {
		if len(rd.h.Tables[t]) == 0 {
			return nil, &LineError{1, fmt.Errorf("table %s has no columns", t)}
		}
	}
	return rd, nil
}

// Header returns the file's header.
func (r *Reader) Header() Header { return r.h }

// Next returns the next row, or io.EOF after the trailer. Any other error
// is a *LineError naming where the file broke: a line that is not a row, a
// table the header does not list, a row of the wrong width, a file that
// ends without its trailer, or a trailer that does not match the rows.
func (r *Reader) Next() (Row, error) {
	if r.done {
		return Row{}, io.EOF
	}
	if !r.sc.Scan() {
		if err := r.sc.Err(); err != nil {
			return Row{}, &LineError{r.line + 1, err}
		}
		return Row{}, &LineError{r.line + 1, errors.New("the file ends without its last line: it was cut short")}
	}
	r.line++
	b := r.sc.Bytes()
	var rl rowLine
	if err := json.Unmarshal(b, &rl); err != nil {
		return Row{}, &LineError{r.line, fmt.Errorf("not a row: %v", err)}
	}
	if rl.T == "" {
		var tl trailerLine
		if err := json.Unmarshal(b, &tl); err != nil || tl.End == nil {
			return Row{}, &LineError{r.line, errors.New("neither a row nor the last line")}
		}
		for _, t := range slices.Sorted(maps.Keys(r.h.Tables)) {
			if tl.End[t] != r.counts[t] {
				return Row{}, &LineError{r.line, fmt.Errorf("the last line counts %d rows of %s, the file has %d", tl.End[t], t, r.counts[t])}
			}
		}
		if r.sc.Scan() {
			return Row{}, &LineError{r.line + 1, errors.New("a line after the last line")}
		}
		r.done = true
		return Row{}, io.EOF
	}
	cols, ok := r.h.Tables[rl.T]
	if !ok {
		return Row{}, &LineError{r.line, fmt.Errorf("table %q is not in the header", rl.T)}
	}
	if len(rl.R) != len(cols) {
		return Row{}, &LineError{r.line, fmt.Errorf("a row of %s has %d values, the header %d columns", rl.T, len(rl.R), len(cols))}
	}
	row := Row{Table: rl.T, Values: make([]any, len(cols)), Line: r.line}
	for i, raw := range rl.R {
		v, err := decodeValue(raw)
		if err != nil {
			return Row{}, &LineError{r.line, fmt.Errorf("%s.%s: %v", rl.T, cols[i], err)}
		}
		row.Values[i] = v
	}
	r.counts[rl.T]++
	return row, nil
}

// decodeValue turns a JSON value of a row into string, json.Number, bool,
// []byte or nil.
func decodeValue(raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return nil, errors.New("an empty value")
	}
	switch raw[0] {
	case '{':
		var b Blob
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, err
		}
		return base64.StdEncoding.DecodeString(b.B64)
	case '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case 't', 'f':
		var v bool
		err := json.Unmarshal(raw, &v)
		return v, err
	case 'n':
		return nil, nil
	case '[':
		return nil, errors.New("an array is not a value")
	default:
		var n json.Number
		err := json.Unmarshal(raw, &n)
		return n, err
	}
}
