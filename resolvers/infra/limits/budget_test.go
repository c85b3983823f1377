package limits_test

import (
	"errors"
	"testing"

	"github.com/okrgate/okrgate/resolvers/infra/limits"
)

// TestBudgetCharge: an operation's spend stops at its node or byte bound,
// and at the server's nodes in flight, shared by every operation until a
// refund or the end of the answer gives them back.
func TestBudgetCharge(t *testing.T) {
	b := limits.Budget{Nodes: 10, Bytes: 100}
	var s limits.Spend
	if err := b.Charge(&s, 10, 50); err != nil {
		t.Fatalf("at the node bound: %v", err)
	}
	if err := b.Charge(&s, 1, 1); !errors.Is(err, limits.ErrBudget) {
		t.Fatalf("past the node bound: %v", err)
	}
	if err := b.Charge(&s, 0, 0); !errors.Is(err, limits.ErrBudget) {
		t.Fatalf("a spent budget stays spent: %v", err)
	}

	s = limits.Spend{}
	if err := b.Charge(&s, 1, 101); !errors.Is(err, limits.ErrBudget) {
		t.Fatalf("past the byte bound: %v", err)
	}

	// Refunded work is charged again without running out.
	s = limits.Spend{}
	for range 5 {
		if err := b.Charge(&s, 10, 100); err != nil {
			t.Fatalf("charged after a refund: %v", err)
		}
		b.Refund(&s, 10, 100)
	}

	// The server's budget: two operations of 6 nodes do not fit in 10.
	shared := limits.Budget{InFlight: limits.NewInFlight(10)}
	var one, two limits.Spend
	if err := shared.Charge(&one, 6, 0); err != nil {
		t.Fatalf("first operation: %v", err)
	}
	if err := shared.Charge(&two, 6, 0); !errors.Is(err, limits.ErrBudget) {
		t.Fatalf("second operation past the nodes in flight: %v", err)
	}
	shared.Refund(&one, 6, 0)
	var three limits.Spend
	if err := shared.Charge(&three, 4, 0); err != nil {
		t.Fatalf("after a refund: %v", err)
	}
}
