package query

// SplitIn splits the largest $in list of e — e itself, or an operand of a
// top-level conjunction — into at most n parts of near-equal size and
// returns one expression per part, each e with that part in place of the
// list. The union of what the parts match is what e matches. ok is false
// when e has no such $in list with at least two values (nothing to split).
// A gateway uses it to keep the URLs of batched loads under a length bound.
func SplitIn(e *Expr, n int) (parts []*Expr, ok bool) {
	if e == nil || n < 2 {
		return nil, false
	}
	target := -1 // index in e.kids; -2 means e itself
	size := 1
	switch e.op {
	case opIn:
		target, size = -2, len(e.vals)
	case opAnd:
		for i, k := range e.kids {
			if k.op == opIn && len(k.vals) > size {
				target, size = i, len(k.vals)
			}
		}
	}
	if target == -1 || size < 2 {
		return nil, false
	}
	in := e
	if target >= 0 {
		in = e.kids[target]
	}
	n = min(n, size)
	for i := range n {
		lo, hi := i*size/n, (i+1)*size/n
		part := *in
		part.vals = append([]any(nil), in.vals[lo:hi]...)
		if target == -2 {
			parts = append(parts, &part)
			continue
		}
		whole := *e
		whole.kids = append([]*Expr(nil), e.kids...)
		whole.kids[target] = &part
		parts = append(parts, &whole)
	}
	return parts, true
}

// InSize returns the length of the $in list SplitIn would split: the
// largest of e itself or of an operand of a top-level conjunction; 0 for
// none.
func InSize(e *Expr) int {
	if e == nil {
		return 0
	}
	switch e.op {
	case opIn:
		return len(e.vals)
	case opAnd:
		n := 0
		for _, k := range e.kids {
			if k.op == opIn {
				n = max(n, len(k.vals))
			}
		}
		return n
	}
	return 0
}
