package sqlstore_test

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// TestStatementsScopedByAccount runs the store's methods outside the
// contract suite — the webhook queue, event and delivery pruning — under a
// statement observer and fails on any statement that reads or writes an
// account table without constraining its account
// (sqlstoretest.CheckAccountScope), except the cross-account statements
// documented in sqlstoretest.CrossAccount. The contract suite
// (TestAPIContract), the tests on newEnv and every test of upstream/transport/rest
// run under the same check.
func TestStatementsScopedByAccount(t *testing.T) {
	var c sqlstoretest.ScopeChecker
	observe := sqlstore.WithStatementObserver(c.Observe)
	t.Run("webhooks and events", func(t *testing.T) {
		st := sqlstoretest.Open(t, observe, sqlstore.WithWebhookPolicy(upstream.WebhookTargetPolicy{AllowPrivate: true}))
		ctx := context.Background()
		b, err := st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Acme", Email: "admin@acme.test"})
		if err != nil {
			t.Fatal(err)
		}
		caller, err := st.Authenticate(ctx, b.Token)
		if err != nil {
			t.Fatal(err)
		}
		admin := upstream.NewContext(ctx, caller)
		w, err := st.CreateWebhook(admin, upstream.WebhookInput{URL: "http://127.0.0.1:9/hook", Events: []upstream.EventType{upstream.AllEvents}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.CreateSession(admin, upstream.SessionInput{Title: "Q1", Start: "2026-01-01", End: "2026-03-31"}); err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		if n, err := st.EnqueueWebhookDeliveries(ctx, now); err != nil || n == 0 {
			t.Fatalf("enqueue: %d, %v", n, err)
		}
		jobs, err := st.ClaimWebhookDeliveries(ctx, now, time.Minute, 10)
		if err != nil || len(jobs) == 0 {
			t.Fatalf("claim: %v, %v", jobs, err)
		}
		if err := st.RecordWebhookAttempt(ctx, jobs[0].AccountID, jobs[0].ID, upstream.WebhookAttempt{Attempt: 1, At: upstream.FormatTime(now),
			StatusCode: 500, NextAttemptAt: upstream.FormatTime(now.Add(time.Second))}, upstream.DeliveryPending); err != nil {
			t.Fatal(err)
		}
		if _, _, err := st.NextWebhookAttempt(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := st.WebhookQueueDepth(ctx); err != nil {
			t.Fatal(err)
		}
		if err := st.ReleaseWebhookLeases(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := st.ListWebhookDeliveries(admin, w.ID, 0, 10); err != nil {
			t.Fatal(err)
		}
		if _, err := st.PruneEvents(ctx, time.Hour); err != nil {
			t.Fatal(err)
		}
		if _, err := st.PruneWebhookDeliveries(ctx, time.Hour); err != nil {
			t.Fatal(err)
		}
		if err := st.DeleteWebhook(admin, w.ID); err != nil {
			t.Fatal(err)
		}
	})
	c.Check(t, 20)
}

// TestAccountTablesListed checks sqlstoretest.AccountTables against the
// schema: every table with an account_id column is listed, and nothing
// else is, but for the global tables that name accounts
// (sqlstoretest.GlobalTables).
func TestAccountTablesListed(t *testing.T) {
	dsn := sqlstoretest.DSN(t)
	st, err := sqlstore.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r := sqlstoretest.OpenRaw(t, dsn)
	stmt := `SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table' AND p.name = 'account_id'`
	if sqlstoretest.Postgres() {
		stmt = `SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'account_id'`
	}
	rows, err := r.QueryContext(context.Background(), stmt)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(sqlstoretest.GlobalTables, name) { // token_accounts: shared by every account
			tables = append(tables, name)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(tables)
	if listed := slices.Sorted(maps.Keys(sqlstoretest.AccountTables)); !slices.Equal(tables, listed) {
		t.Errorf("tables with account_id: %v; sqlstoretest.AccountTables: %v", tables, listed)
	}
}
