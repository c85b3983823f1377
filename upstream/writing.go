package upstream

// WriteOptions change how a backend applies the writes of one request, the
// options HTTP carries in headers: a precondition (If-Match) and an
// idempotency key (Idempotency-Key). They are given to API.Writing, whose
// view of the API applies them to every write made through it, so that a
// write's behaviour is decided by the value it is called on and its
// arguments, never by what a context happens to carry.
//
// Both fields are pointers because the backend reports through them: the
// version a conditional write left (Precondition.ETag, Precondition.Done)
// and whether a server of the REST API replayed its recorded answer
// (IdempotencyKey.Replayed). A view, like the options it holds, belongs to
// one request and is not for concurrent use.
type WriteOptions struct {
	// Precondition, when set, makes the first write committed through the
	// view on the resource it names conditional on IfMatch, compared inside
	// the write's transaction; the write then records the version it left.
	// Later writes of the view are unconditional (Done).
	Precondition *Precondition
	// Idempotency, when set, is the key the HTTP layer reserved
	// (Idempotency.ReserveIdempotencyKey): the backend marks it applied in
	// the transaction of each write of the view, so the request's writes
	// are applied at most once even when the process dies before its
	// answer is recorded. A backend that forwards writes to a server of the
	// REST API sends it as the Idempotency-Key of its POSTs instead.
	Idempotency *IdempotencyKey
}

// IsZero reports whether o holds no option, so that a view would behave
// as the API itself.
func (o WriteOptions) IsZero() bool {
	return o.Precondition == nil && o.Idempotency == nil
}
