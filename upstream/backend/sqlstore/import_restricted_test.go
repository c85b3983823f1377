package sqlstore_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/accountfile"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
)

// TestImportWithoutRestrictedColumn imports an account file written before
// the restricted column (goals' and key results': the file's header and
// rows without it) holding a private goal and a private key result, and
// checks that the import takes the column from the documents: a member and
// a viewer of the imported account list neither the private goal nor the
// private key result, and the listings' counts leave them out.
func TestImportWithoutRestrictedColumn(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	p := e.privateUnderPublic()
	tokens := map[string]string{}
	for _, role := range []string{upstream.RoleMember, upstream.RoleViewer} {
		u, err := e.store.CreateUser(e.ctx, sqlstore.UserInput{Email: role + "@acme.test", FirstName: role, Role: role})
		if err != nil {
			t.Fatal(err)
		}
		tok, err := e.store.CreateUserToken(e.ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		tokens[role] = tok.Token
	}
	file := exportOf(t, e.store, e.boot.AccountID, sqlstore.ExportOptions{Tokens: true})
	old, dropped := withoutColumns(t, file, func(table, col string) bool {
		return (table == "goals" || table == "metrics") && col == "restricted"
	})
	if len(dropped["goals"]) != 1 || len(dropped["metrics"]) != 1 {
		t.Fatalf("restricted columns in the file: %v, want one of goals and one of key results", dropped)
	}

	dst, err := sqlstore.Open(ctx, sqlstoretest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	if _, err := importInto(dst, old, sqlstore.ImportOptions{}); err != nil {
		t.Fatalf("import of a file without the restricted column: %v", err)
	}
	for role, tok := range tokens {
		c, err := dst.Authenticate(ctx, tok)
		if err != nil {
			t.Fatal(err)
		}
		rctx := upstream.NewContext(ctx, c)
		gs, err := dst.ListGoals(rctx, upstream.ListQuery{})
		if err != nil {
			t.Fatalf("%s lists goals: %v", role, err)
		}
		if slices.ContainsFunc(gs.Items, func(g upstream.Goal) bool { return g.ID == p.child.ID }) {
			t.Errorf("%s lists the private goal %s after the import", role, p.child.ID)
		}
		if gs.TotalCount != 1 || len(gs.Items) != 1 || gs.Items[0].ID != p.parent.ID {
			t.Errorf("%s lists %d goals (total %d), want only the public parent %s", role, len(gs.Items), gs.TotalCount, p.parent.ID)
		}
		ms, err := dst.ListMetrics(rctx, upstream.ListQuery{})
		if err != nil {
			t.Fatalf("%s lists key results: %v", role, err)
		}
		if slices.ContainsFunc(ms.Items, func(m upstream.Metric) bool { return m.ID == p.parentKR.ID }) {
			t.Errorf("%s lists the private key result %s after the import", role, p.parentKR.ID)
		}
		if ms.TotalCount != 0 || len(ms.Items) != 0 {
			t.Errorf("%s lists %d key results (total %d), want none (one private, one of a private goal)", role, len(ms.Items), ms.TotalCount)
		}
	}
}

// withoutColumns returns file as a file of an older version would hold it:
// the columns drop says, of the tables it says, gone from the header and
// from every row; and, per table, the indexes of the dropped columns,
// descending.
func withoutColumns(t *testing.T, file []byte, drop func(table, col string) bool) ([]byte, map[string][]int) {
	t.Helper()
	lines := strings.SplitAfter(strings.TrimSuffix(string(file), "\n"), "\n")
	var h accountfile.Header
	if err := json.Unmarshal([]byte(lines[0]), &h); err != nil {
		t.Fatal(err)
	}
	dropped := map[string][]int{}
	for table, cols := range h.Tables {
		for i := len(cols) - 1; i >= 0; i-- {
			if drop(table, cols[i]) {
				dropped[table] = append(dropped[table], i)
				cols = slices.Delete(cols, i, i+1)
			}
		}
		h.Tables[table] = cols
	}
	head, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{string(head) + "\n"}
	for _, l := range lines[1:] {
		var row struct {
			T string            `json:"t"`
			R []json.RawMessage `json:"r"`
		}
		if json.Unmarshal([]byte(l), &row) != nil || row.T == "" || dropped[row.T] == nil {
			out = append(out, l) // the trailer, and the other tables' rows
			continue
		}
		for _, i := range dropped[row.T] {
			row.R = slices.Delete(row.R, i, i+1)
		}
		b, err := json.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b)+"\n")
	}
	return []byte(strings.Join(out, "")), dropped
}
