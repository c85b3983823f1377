package sqlstore

import (
	"database/sql"
	"reflect"
	"unsafe"

	fastjson "github.com/goccy/go-json"
)

// scanDocs decodes the documents of rows.
func scanDocs[T any](rows *sql.Rows) ([]T, error) { return scanDocsN[T](rows, 0) }

// scanDocsN decodes the documents of rows, expecting about n of them. Each
// document is scanned into one reused buffer (sql.RawBytes): the decoder
// copies it, and detach moves the item's strings out of that copy.
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
func scanDocsN[T any](rows *sql.Rows, n int) ([]T, error) {
	defer rows.Close()
	sf := stringFieldsOf(reflect.TypeFor[T]()) // the decoder's strings point into its copy of the row
	decode := func(raw []byte, item *T) error {
		if err := fastjson.Unmarshal(raw, item); err != nil {
			return err
		}
		sf.detach(unsafe.Pointer(item))
		return nil
	}
	var raw sql.RawBytes
	if n > 0 {
		items := make([]T, 0, n)
		for rows.Next() {
			if err := rows.Scan(&raw); err != nil {
				return nil, err
			}
			items = append(items, *new(T))
			if err := decode(raw, &items[len(items)-1]); err != nil {
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
	add := func(raw []byte) error {
		if len(chunks) == 0 || len(chunks[len(chunks)-1]) == chunk {
			chunks = append(chunks, make([]T, 0, chunk))
		}
		c := &chunks[len(chunks)-1]
		*c = append(*c, *new(T))
		total++
		return decode(raw, &(*c)[len(*c)-1])
	}
	for rows.Next() {
		if err := rows.Scan(&raw); err != nil {
			return nil, err
		}
		if ends == nil && total > 0 { // chunks
			if err := add(raw); err != nil {
				return nil, err
			}
			continue
		}
		buf = append(buf, raw...)
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
