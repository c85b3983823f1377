package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"

	"github.com/okrgate/okrgate/upstream"
)

var _ upstream.Versions = (*Store)(nil)

// Version returns the entity tag of a goal, key result, task or session of
// the caller's account: a digest of its stored document (for a goal, with
// the documents of its key results, which its answer embeds). Every write
// rewrites the document, derived figures included, so the tag changes with
// every change the answer shows except the names of people, which are
// joined at read time. It does not authorize (see upstream.Versions).
func (s *Store) Version(ctx context.Context, kind, id string) (string, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return "", err
	}
	v, err := version(ctx, s.read(), c.AccountID, kind, id)
	if err != nil {
		return "", err
	}
	if v == "" {
		return "", upstream.NotFound(kind, id)
	}
	return v, nil
}

// VersionsOf returns the entity tags of those of ids of kind that exist, as
// Version does for each, in one statement per table: the documents of the
// ids (and, for goals, of their key results, in id order).
func (s *Store) VersionsOf(ctx context.Context, kind string, ids []string) (map[string]string, error) {
	c, err := upstream.MustCaller(ctx)
	if err != nil {
		return nil, err
	}
	table, ok := versionTable(kind)
	if !ok {
		return nil, fmt.Errorf("sqlstore: versions: no versions of %q", kind)
	}
	q := s.read()
	docs := map[string]*bytes.Buffer{}
	err = eachRow(ctx, q, "SELECT id, doc FROM "+table+" WHERE account_id = ? AND id IN "+idList, []any{c.AccountID, idsParam(ids)}, func(id string, doc []byte) {
		b := &bytes.Buffer{}
		b.Write(doc)
		b.WriteByte('\n')
		docs[id] = b
	})
	if err != nil {
		return nil, fmt.Errorf("sqlstore: versions of %s: %w", kind, err)
	}
	if kind == upstream.KindGoal && len(docs) > 0 {
		err = eachRow(ctx, q, "SELECT goal_id, doc FROM metrics WHERE account_id = ? AND goal_id IN "+idList+" ORDER BY goal_id, id", []any{c.AccountID, idsParam(ids)}, func(goal string, doc []byte) {
			if b := docs[goal]; b != nil {
				b.Write(doc)
				b.WriteByte('\n')
			}
		})
		if err != nil {
			return nil, fmt.Errorf("sqlstore: versions of %s: %w", kind, err)
		}
	}
	out := make(map[string]string, len(docs))
	for id, b := range docs {
		out[id] = upstream.ETagOf(b.Bytes())
	}
	return out, nil
}

// eachRow calls fn with the key and the document of each row of stmt (the
// document's bytes are fn's only for the call).
func eachRow(ctx context.Context, q querier, stmt string, args []any, fn func(key string, doc []byte)) error {
	rows, err := q.QueryContext(ctx, stmt, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var key string
	var doc sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&key, &doc); err != nil {
			return err
		}
		fn(key, doc)
	}
	return rows.Err()
}

// versionTable returns the table of the documents whose bytes are the
// versions of kind: the first table of its resource (upstream.Resources);
// a goal's version takes its key results' documents besides, which its
// answer embeds.
func versionTable(kind string) (string, bool) {
	r, ok := upstream.ResourceOfKind(kind)
	if !ok || len(r.Tables) == 0 {
		return "", false
	}
	return r.Tables[0].Name, true
}

// version returns the entity tag of kind/id, or "" when there is no such
// resource.
func version(ctx context.Context, q querier, account, kind, id string) (string, error) {
	table, ok := versionTable(kind)
	if !ok {
		return "", fmt.Errorf("sqlstore: version: no versions of %q", kind)
	}
	stmts := []string{"SELECT doc FROM " + table + " WHERE account_id = ? AND id = ?"}
	if kind == upstream.KindGoal {
		stmts = append(stmts, "SELECT doc FROM metrics WHERE account_id = ? AND goal_id = ? ORDER BY id")
	}
	if !upstream.ValidID(id) {
		return "", nil
	}
	var buf bytes.Buffer
	for i, stmt := range stmts {
		rows, err := q.QueryContext(ctx, stmt, account, id)
		if err != nil {
			return "", fmt.Errorf("sqlstore: version of %s %s: %w", kind, id, err)
		}
		n := 0
		for rows.Next() {
			var doc []byte
			if err := rows.Scan(&doc); err != nil {
				rows.Close()
				return "", fmt.Errorf("sqlstore: version of %s %s: %w", kind, id, err)
			}
			buf.Write(doc)
			buf.WriteByte('\n')
			n++
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return "", fmt.Errorf("sqlstore: version of %s %s: %w", kind, id, err)
		}
		if i == 0 && n == 0 {
			return "", nil
		}
	}
	return upstream.ETagOf(buf.Bytes()), nil
}

// Writing returns a view of the store whose writes apply o: the
// precondition is compared inside the transaction of the first write on its
// resource that commits (beforeWrite, afterWrite), and the idempotency key
// is marked applied in the transaction of each write (markApplied).
func (s *Store) Writing(o upstream.WriteOptions) upstream.API {
	v := *s
	v.opts = o
	return &v
}

// beforeWrite is the first step of a write transaction: when the view's
// precondition is not yet met by an earlier write of the request, it reads
// the version the write starts from.
func (s *Store) beforeWrite(ctx context.Context, q querier) (string, error) {
	p := s.opts.Precondition
	c, ok := upstream.CallerFrom(ctx)
	if p == nil || p.Done || len(p.IfMatch) == 0 || !ok {
		return "", nil
	}
	return version(ctx, q, c.AccountID, p.Kind, p.ID)
}

// afterWrite is the last step of a write transaction before its commit,
// after the write itself succeeded (so its own errors — not found,
// forbidden, invalid — come first): it compares the version the write
// started from with If-Match, failing the transaction on a mismatch;
// records the version the write leaves; and marks the request's
// idempotency key applied, in the same transaction as the write.
func (s *Store) afterWrite(ctx context.Context, q querier, before string) error {
	if p := s.opts.Precondition; p != nil && !p.Done {
		c, ok := upstream.CallerFrom(ctx)
		if !ok {
			return upstream.Errorf(upstream.CodeUnauthenticated, "a conditional write needs a caller")
		}
		if err := p.Check(before); err != nil {
			return err
		}
		v, err := version(ctx, q, c.AccountID, p.Kind, p.ID)
		if err != nil {
			return err
		}
		p.ETag = v
	}
	return markApplied(ctx, q, s.opts.Idempotency)
}

// committed marks the view's precondition met, after the first write under
// it committed.
func (s *Store) committed() {
	if p := s.opts.Precondition; p != nil {
		p.Done = true
	}
}
