package model

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestMarshalFloatLikeBuiltin: the Float scalar writes the same bytes as
// gqlgen's built-in one (fmt's %g), and null for what JSON cannot hold.
func TestMarshalFloatLikeBuiltin(t *testing.T) {
	values := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1.0 / 3, 100, 123456, 1e6, 1e21, 1e-5, 0.0001,
		-2.5e-7, math.MaxFloat64, math.SmallestNonzeroFloat64, 0.1 + 0.2}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		values = append(values, (r.Float64()-0.5)*math.Pow(10, float64(r.IntN(40)-20)))
	}
	for _, v := range values {
		var b bytes.Buffer
		MarshalFloat(v).MarshalGQL(&b)
		if want := fmt.Sprintf("%g", v); b.String() != want {
			t.Fatalf("MarshalFloat(%v) = %q, want %q", v, b.String(), want)
		}
	}
	for _, v := range []float64{math.Inf(1), math.Inf(-1), math.NaN()} {
		var b bytes.Buffer
		MarshalFloat(v).MarshalGQL(&b)
		if b.String() != "null" {
			t.Errorf("MarshalFloat(%v) = %q, want null", v, b.String())
		}
	}
}
