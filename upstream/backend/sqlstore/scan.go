package sqlstore

import (
	"database/sql"
	"reflect"
	"unsafe"

	fastjson "github.com/goccy/go-json"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/internal/jsonpick"
)

// scanDocs decodes the documents of rows.
func scanDocs[T any](rows *sql.Rows) ([]T, error) { return scanDocsN[T](rows, 0, rowDoc{}) }

// rowDoc says how scanDocsN makes of a row the document it decodes: the
// row's one column as it is (the zero rowDoc); the members under pick of
// that column, a whole document (SQLite); or an object of the row's
// columns, one member each (PostgreSQL). See dialect.narrow.
type rowDoc struct {
	pick    []string
	members []member
}

// member is a column of a row read as one member of its document, under
// key: a text column, written as a JSON string, or else a JSON value. A
// NULL or empty column is left out, as an absent key (which decodes as
// null and "" do).
type member struct {
	key  string
	text bool
}

// scanDocsN decodes the documents of rows, expecting about n of them. Each
// document is scanned into one reused buffer (sql.RawBytes): the decoder
// copies it, and detach moves the item's strings out of that copy. The
// document of a row is made as rd says (docSQL): members picked out of it
// (jsonpick; a row they cannot be picked from is kept whole) or written
// from its columns, into a buffer of their own before the row is decoded
// or kept.
// Decoding was most of the time of a large read (60%
// of a 10,000-objective tree's, in a CPU profile of BenchmarkNestedTree), so
// it uses github.com/goccy/go-json, a decoder compatible with encoding/json
// (struct tags, Unmarshaler methods) at about 0.6 of its time and half its
// allocations on the tree (docs/decisions/tree-read-path.md).
//
// Without an estimate (n <= 0) the rows are first read into one buffer
// of their bytes, then decoded into a slice of their exact length: a level
// of narrowed documents (a few keys each, ~200–400 bytes) costs its items
// and that buffer at once, not the items twice — decoding into chunks and
// copying them into one slice held both, 4 MB each for the 6,000 key
// results of a tree's last level (docs/decisions/tree-memory.md, "The tree's
// memory"). The buffer's blocks are let go as their rows are decoded, so
// the buffer shrinks while the items fill. Rows larger than an item (whole
// documents) would make the buffer the larger: from the first row that
// tips it over, the items are decoded into chunks copied once into a slice
// of their exact length (appending to one slice doubles it, and a level of
// 20,000 key results of ~1 KB each then held a 32,768-item array and the
// halves it grew from). The bound was half an item until a goal's own keys
// (~330 bytes narrowed, against a 624-byte upstream.Goal) sent every level
// of goals to the chunks (docs/benchmarks/tree-memory.md, "Rows buffered up
// to an item").
func scanDocsN[T any](rows *sql.Rows, n int, rd rowDoc) ([]T, error) {
	defer rows.Close()
	// scan reads the next row and returns its document: raw, or the
	// document made of the row in made (never in raw, which the next Scan
	// may reuse).
	var raw sql.RawBytes
	var made []byte
	var cols []any // rd.members: a *sql.RawBytes per column
	for range rd.members {
		cols = append(cols, new(sql.RawBytes))
	}
	scan := func() ([]byte, error) {
		if cols != nil {
			if err := rows.Scan(cols...); err != nil {
				return nil, err
			}
			made = appendMembers(made[:0], rd.members, cols)
			return made, nil
		}
		if err := rows.Scan(&raw); err != nil || rd.pick == nil {
			return raw, err
		}
		m, err := jsonpick.Append(made[:0], raw, rd.pick)
		if err != nil {
			return raw, nil
		}
		made = m
		return made, nil
	}
	sf := stringFieldsOf(reflect.TypeFor[T]()) // the decoder's strings point into its copy of the row
	var prev unsafe.Pointer                    // the item decoded last, whose strings an item may share (detach)
	decode := func(doc []byte, item *T) error {
		if err := fastjson.Unmarshal(doc, item); err != nil {
			return err
		}
		sf.detach(unsafe.Pointer(item), prev)
		prev = unsafe.Pointer(item)
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
	var read rowBuffer
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
	buffering := true
	for rows.Next() {
		row, err := scan()
		if err != nil {
			return nil, err
		}
		if !buffering {
			if err := add(row); err != nil {
				return nil, err
			}
			continue
		}
		read.add(row)
		if read.size <= len(read.ends)*itemSize {
			continue
		}
		// The rows are larger than an item: the ones read so far go into
		// chunks, and the next ones too.
		if err := read.drain(func(_ int, doc []byte) error { return add(doc) }); err != nil {
			return nil, err
		}
		read, buffering = rowBuffer{}, false
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if buffering {
		items := make([]T, len(read.ends))
		if err := read.drain(func(i int, doc []byte) error { return decode(doc, &items[i]) }); err != nil {
			return nil, err
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

// rowBuffer holds the rows of a level as they are read, in blocks that
// each hold whole rows, each twice the size of the one before up to
// maxRowBlock: growing one buffer by appending copied it at every doubling
// and held the old and the new array at once (6,000 key results of a
// tree's last level, ~1.5 MB read, allocated ~3 MB); blocks are never
// copied, and a small level still takes a small block.
type rowBuffer struct {
	blocks [][]byte
	ends   []int // of each row, in its block
	firsts []int // the index of the first row of each block
	size   int   // bytes of the rows
}

// The sizes of a rowBuffer's blocks: the first, and the largest (a row
// larger than that takes a block of its own size).
const (
	minRowBlock = 4 << 10
	maxRowBlock = 64 << 10
)

// add appends a copy of row.
func (b *rowBuffer) add(row []byte) {
	n := len(b.blocks)
	if n == 0 || len(b.blocks[n-1])+len(row) > cap(b.blocks[n-1]) {
		size := minRowBlock
		if n > 0 {
			size = min(2*cap(b.blocks[n-1]), maxRowBlock)
		}
		b.blocks = append(b.blocks, make([]byte, 0, max(size, len(row))))
		b.firsts = append(b.firsts, len(b.ends))
		n++
	}
	b.blocks[n-1] = append(b.blocks[n-1], row...)
	b.ends = append(b.ends, len(b.blocks[n-1]))
	b.size += len(row)
}

// drain calls fn with each row and its index, in order, and stops at the
// first error. It lets go of each block once its rows were passed to fn,
// so that the blocks are garbage as they are read rather than when the
// last row is; the buffer is empty afterwards.
func (b *rowBuffer) drain(fn func(i int, row []byte) error) error {
	block, start := -1, 0
	for i, e := range b.ends {
		if block+1 < len(b.firsts) && b.firsts[block+1] == i {
			if block >= 0 {
				b.blocks[block] = nil
			}
			block, start = block+1, 0
		}
		if err := fn(i, b.blocks[block][start:e]); err != nil {
			return err
		}
		start = e
	}
	*b = rowBuffer{}
	return nil
}

// appendMembers appends to dst the JSON object of a row's columns (each a
// *sql.RawBytes), one member each.
func appendMembers(dst []byte, members []member, cols []any) []byte {
	dst = append(dst, '{')
	open := len(dst)
	for i, m := range members {
		v := *cols[i].(*sql.RawBytes)
		if len(v) == 0 {
			continue
		}
		if len(dst) > open {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = append(dst, m.key...)
		dst = append(dst, '"', ':')
		if m.text {
			dst = appendJSONString(dst, v)
		} else {
			dst = append(dst, v...)
		}
	}
	return append(dst, '}')
}

// appendJSONString appends s as a JSON string: quotes, backslashes and
// control characters escaped, the rest (UTF-8) as it is.
func appendJSONString(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}
