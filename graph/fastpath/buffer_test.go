package fastpath

import (
	"bytes"
	"strings"
	"testing"
)

// TestFastBufferWritesWhatBytesBufferWrites: across chunk boundaries, with
// writes of every size, the chunks hold the bytes a bytes.Buffer would.
func TestFastBufferWritesWhatBytesBufferWrites(t *testing.T) {
	var got fastBuffer
	var want bytes.Buffer
	for i := 0; want.Len() < 3*fastChunkMax; i++ {
		switch i % 3 {
		case 0:
			_ = got.WriteByte(byte('a' + i%26))
			_ = want.WriteByte(byte('a' + i%26))
		case 1:
			s := strings.Repeat(string(rune('A'+i%26)), i%700)
			_, _ = got.WriteString(s)
			_, _ = want.WriteString(s)
		default:
			p := bytes.Repeat([]byte{byte('0' + i%10)}, i*37%(fastChunkMax+3))
			_, _ = got.Write(p)
			_, _ = want.Write(p)
		}
		if got.Len() != want.Len() {
			t.Fatalf("after write %d: Len %d, want %d", i, got.Len(), want.Len())
		}
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatal("Bytes differ from bytes.Buffer's")
	}
	var out bytes.Buffer
	fastJSON{&got}.MarshalGQL(&out)
	if !bytes.Equal(out.Bytes(), want.Bytes()) {
		t.Fatal("MarshalGQL wrote other bytes")
	}
	// Ranges within a chunk, across one boundary and across several, as
	// the levels' pieces are copied out (copyTo), to each kind of sink.
	w := want.Bytes()
	for _, r := range [][2]int{{0, 0}, {0, 1}, {3, 500}, {500, 513}, {511, 1537}, {1000, 3 * fastChunkMax}, {fastChunkMax - 1, fastChunkMax + 1}, {len(w) - 7, len(w)}, {0, len(w)}} {
		var dst fastBuffer
		var to bytes.Buffer
		var n fastCount
		got.copyTo(&dst, r[0], r[1])
		got.copyTo(&fastTo{w: &to}, r[0], r[1])
		got.copyTo(&n, r[0], r[1])
		if part := w[r[0]:r[1]]; !bytes.Equal(dst.Bytes(), part) || !bytes.Equal(to.Bytes(), part) || n.Len() != len(part) {
			t.Fatalf("copyTo(%d, %d) wrote other bytes", r[0], r[1])
		}
	}
	got.Reset()
	if got.Len() != 0 || len(got.Bytes()) != 0 {
		t.Fatalf("after Reset: Len %d", got.Len())
	}
}
