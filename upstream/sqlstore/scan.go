package sqlstore

import (
	"database/sql"
	"reflect"
	"unsafe"

	fastjson "github.com/goccy/go-json"

	"github.com/okrgate/okrgate/upstream/sqlstore/internal/jsonpick"
)

// scanDocs decodes the documents of rows.
func scanDocs[T any](rows *sql.Rows) ([]T, error) { return scanDocsN[T](rows, 0, nil) }

// scanDocsN decodes the documents of rows, expecting about n of them. Each
// document is scanned into one reused buffer (sql.RawBytes): the decoder
// copies it, and detach moves the item's strings out of that copy. With
// pick, only the members of each document under those keys are decoded
// (docSQL): they are copied out of the row (jsonpick) before it is
// decoded or kept; a row they cannot be picked from is kept whole.
// Decoding was most of the time of a large read (60%
// of a 10,000-objective tree's, in a CPU profile of BenchmarkNestedTree), so
// it uses github.com/goccy/go-json, a decoder compatible with encoding/json
// (struct tags, Unmarshaler methods) at about 0.6 of its time and half its
// allocations on the tree (docs/decisions.md).
//
// Without an estimate (n <= 0) the rows are first read into one buffer
// of their bytes, then decoded into a slice of their exact length: a level
// of narrowed documents (a few keys each, ~200 bytes) costs its items and
// that buffer at once, not the items twice — decoding into chunks and
// copying them into one slice held both, 4 MB each for the 6,000 key
// results of a tree's last level (docs/decisions.md, "The tree's
// memory"). Rows larger than half an item (whole documents) would make
// the buffer the larger: from the first row that tips it over, the items
// are decoded into chunks copied once into a slice of their exact length
// (appending to one slice doubles it, and a level of 20,000 key results of
// ~1 KB each then held a 32,768-item array and the halves it grew from).
func scanDocsN[T any](rows *sql.Rows, n int, pick []string) ([]T, error) {
	defer rows.Close()
	// scan reads the next row into raw and returns its document, or the
	// members picked from it into picked (never into raw, which the next
	// Scan may reuse).
	var raw sql.RawBytes
	var picked []byte
	scan := func() ([]byte, error) {
		if err := rows.Scan(&raw); err != nil || pick == nil {
			return raw, err
		}
		p, err := jsonpick.Append(picked[:0], raw, pick)
		if err != nil {
			return raw, nil
		}
		picked = p
		return p, nil
	}
	sf := stringFieldsOf(reflect.TypeFor[T]()) // the decoder's strings point into its copy of the row
	decode := func(doc []byte, item *T) error {
		if err := fastjson.Unmarshal(doc, item); err != nil {
			return err
		}
		sf.detach(unsafe.Pointer(item))
		return nil
	}
	if n > 0 {
		items := make([]T, 0, n)
		for rows.Next() {
			doc, err := scan()
			if err != nil {
				return nil, err
			}
			items = append(items, *new(T))
			if err := decode(doc, &items[len(items)-1]); err != nil {
				return nil, err
			}
		}
		return items, rows.Err()
	}
	itemSize := int(reflect.TypeFor[T]().Size())
	var buf []byte
	var ends []int // of each row in buf
	const chunk = 256
	var chunks [][]T
	total := 0
	add := func(doc []byte) error {
		if len(chunks) == 0 || len(chunks[len(chunks)-1]) == chunk {
			chunks = append(chunks, make([]T, 0, chunk))
		}
		c := &chunks[len(chunks)-1]
		*c = append(*c, *new(T))
		total++
		return decode(doc, &(*c)[len(*c)-1])
	}
	for rows.Next() {
		doc, err := scan()
		if err != nil {
			return nil, err
		}
		if ends == nil && total > 0 { // chunks
			if err := add(doc); err != nil {
				return nil, err
			}
			continue
		}
		buf = append(buf, doc...)
		ends = append(ends, len(buf))
		if 2*len(buf) <= len(ends)*itemSize {
			continue
		}
		// The rows are larger than half an item: the ones read so far go
		// into chunks, and the next ones too.
		start := 0
		for _, e := range ends {
			if err := add(buf[start:e]); err != nil {
				return nil, err
			}
			start = e
		}
		buf, ends = nil, nil
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if total == 0 {
		items := make([]T, len(ends))
		start := 0
		for i, e := range ends {
			if err := decode(buf[start:e], &items[i]); err != nil {
				return nil, err
			}
			start = e
		}
		return items, nil
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	items := make([]T, 0, total)
	for i, c := range chunks {
		items = append(items, c...)
		chunks[i] = nil // free as we go
	}
	return items, nil
}
