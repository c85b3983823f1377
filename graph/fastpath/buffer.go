package fastpath

import (
	"io"
	"slices"
)

// fastBuffer is the answer the fast path writes: chunks that are never
// copied once written. A bytes.Buffer doubles as it grows, so a 2 MB answer
// left up to 4 MB of earlier arrays as garbage and its last array was up
// to twice the answer, all while the tree's levels were still live — the
// moment of the request's peak memory (docs/decisions/tree-memory.md, "The tree's
// memory").
type fastBuffer struct {
	full [][]byte // filled chunks
	offs []int    // the offset of each of full
	cur  []byte   // the chunk being written
	n    int      // bytes in full
}

// Chunk sizes: the first chunk is small (most answers are), each next one
// twice the last up to fastChunkMax.
const (
	fastChunkMin = 512
	fastChunkMax = 64 << 10
)

// Len is the number of bytes written.
func (b *fastBuffer) Len() int { return b.n + len(b.cur) }

// Reset empties the buffer. It keeps none of its chunks, so that an
// answer handed out before (fastJSON) stays intact.
func (b *fastBuffer) Reset() { *b = fastBuffer{} }

// room makes room in cur for at least one byte.
func (b *fastBuffer) room() {
	if len(b.cur) < cap(b.cur) {
		return
	}
	size := fastChunkMin
	if c := cap(b.cur); c > 0 {
		size = min(2*c, fastChunkMax)
		b.full = append(b.full, b.cur)
		b.offs = append(b.offs, b.n)
		b.n += len(b.cur)
	}
	b.cur = make([]byte, 0, size)
}

// Write appends p; it never fails.
func (b *fastBuffer) Write(p []byte) (int, error) { return writeChunked(b, p), nil }

// WriteString appends s; it never fails.
func (b *fastBuffer) WriteString(s string) (int, error) { return writeChunked(b, s), nil }

// writeChunked appends p to b chunk by chunk, never copying what is
// already written, and returns len(p).
func writeChunked[T []byte | string](b *fastBuffer, p T) int {
	n := len(p)
	for len(p) > 0 {
		b.room()
		k := min(len(p), cap(b.cur)-len(b.cur))
		b.cur = append(b.cur, p[:k]...)
		p = p[k:]
	}
	return n
}

// WriteByte appends c; it never fails.
func (b *fastBuffer) WriteByte(c byte) error {
	b.room()
	b.cur = append(b.cur, c)
	return nil
}

// WriteTo writes the buffer's bytes to w, chunk by chunk.
func (b *fastBuffer) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for _, c := range append(b.full, b.cur) {
		k, err := w.Write(c)
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// Bytes returns a copy of the buffer's bytes in one slice.
func (b *fastBuffer) Bytes() []byte {
	out := make([]byte, 0, b.Len())
	for _, c := range b.full {
		out = append(out, c...)
	}
	return append(out, b.cur...)
}

// copyTo writes the bytes of b from offset s to e to dst.
func (b *fastBuffer) copyTo(dst io.Writer, s, e int) {
	// k-1 is the full chunk holding s (the last starting at or before
	// it); k == len(full) and s >= n: cur.
	k, _ := slices.BinarySearch(b.offs, s+1)
	for s < e {
		c, off := b.cur, b.n
		if k-1 < len(b.full) && s < b.n {
			c, off = b.full[k-1], b.offs[k-1]
		}
		part := c[s-off : min(e-off, len(c))]
		_, _ = dst.Write(part)
		s += len(part)
		k++
	}
}

// fastSink is where the fast path writes an answer: a fastBuffer, a
// fastCount or a fastTo.
type fastSink interface {
	io.Writer
	io.StringWriter
	io.ByteWriter
	Len() int // bytes written
}

// fastCount counts what is written to it.
type fastCount struct{ n int }

func (c *fastCount) Write(p []byte) (int, error)       { c.n += len(p); return len(p), nil }
func (c *fastCount) WriteString(s string) (int, error) { c.n += len(s); return len(s), nil }
func (c *fastCount) WriteByte(byte) error              { c.n++; return nil }
func (c *fastCount) Len() int                          { return c.n }

// fastTo writes to w, gqlgen's writer, which never fails (a buffer).
type fastTo struct {
	w io.Writer
	n int
	b [1]byte
}

func (t *fastTo) Write(p []byte) (int, error) {
	k, err := t.w.Write(p)
	t.n += k
	return k, err
}

func (t *fastTo) WriteString(s string) (int, error) {
	k, err := io.WriteString(t.w, s)
	t.n += k
	return k, err
}

func (t *fastTo) WriteByte(c byte) error {
	t.b[0] = c
	_, err := t.Write(t.b[:])
	return err
}

func (t *fastTo) Len() int { return t.n }

// fastJSON is an answer the fast path wrote.
type fastJSON struct{ b *fastBuffer }

// MarshalGQL writes the answer.
func (j fastJSON) MarshalGQL(w io.Writer) { _, _ = j.b.WriteTo(w) }
