package model

import (
	"io"
	"math"
	"strconv"

	"github.com/99designs/gqlgen/graphql"
)

// MarshalFloat writes a Float exactly as gqlgen's built-in scalar does
// (fmt's %g: the shortest representation), but without holding on to the
// field's context: gqlgen's context-aware Float keeps every Float field's
// context, and with it the field's FieldContext, alive until the whole
// answer is written, which is a large part of a big tree's peak memory
// (docs/benchmarks/tree.md). An infinite or NaN value, which the store never
// produces, is written as null.
func MarshalFloat(f float64) graphql.Marshaler { return float(f) }

// UnmarshalFloat accepts a number (or a numeric string), as the built-in
// scalar does.
func UnmarshalFloat(v any) (float64, error) { return graphql.UnmarshalFloat(v) }

// float is a Float value that writes itself.
type float float64

// MarshalGQL writes f.
func (f float) MarshalGQL(w io.Writer) {
	v := float64(f)
	if math.IsInf(v, 0) || math.IsNaN(v) {
		io.WriteString(w, "null")
		return
	}
	var buf [32]byte
	w.Write(strconv.AppendFloat(buf[:0], v, 'g', -1, 64))
}
