package sqlstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/accountfile"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"
	"github.com/okrgate/okrgate/upstream/seed"
)

// movedAccount is a SQLite store holding an account worth moving: the demo
// company (teams, a private goal's owners, check-ins, tasks) and a
// synthetic tree beside it, and the admin's token.
func movedAccount(t *testing.T) (*sqlstore.Store, sqlstore.BootstrapResult) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "source.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	b, err := st.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Moving Co", Email: "admin@moving.test"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := st.Authenticate(ctx, b.Token)
	if err != nil {
		t.Fatal(err)
	}
	actx := upstream.NewContext(ctx, c)
	if _, err := seed.Demo(actx, st); err != nil {
		t.Fatal(err)
	}
	if _, err := seed.Synthetic(actx, st, seed.Options{Goals: 120, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	return st, b
}

func exportOf(t *testing.T, st *sqlstore.Store, account string, opts sqlstore.ExportOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := st.ExportAccount(context.Background(), account, opts, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func importInto(st *sqlstore.Store, file []byte, opts sqlstore.ImportOptions) (sqlstore.ImportReport, error) {
	r, err := accountfile.NewReader(bytes.NewReader(file))
	if err != nil {
		return sqlstore.ImportReport{}, err
	}
	return st.ImportAccount(context.Background(), r, opts)
}

// rowsOf returns every row of an account file as table and canonical JSON
// of its columns by name (documents decoded, so that SQLite's and
// PostgreSQL's spellings of one document compare equal), sorted.
func rowsOf(t *testing.T, file []byte) []string {
	t.Helper()
	r, err := accountfile.NewReader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for {
		row, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]any{}
		for i, c := range r.Header().Tables[row.Table] {
			v := row.Values[i]
			if s, ok := v.(string); ok && (strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[")) {
				var doc any
				if json.Unmarshal([]byte(s), &doc) == nil {
					v = doc
				}
			}
			if n, ok := v.(json.Number); ok {
				v = n.String()
			}
			m[c] = v
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, row.Table+" "+string(b))
	}
	slices.Sort(out)
	return out
}

// TestMoveAccount moves an account from SQLite into a store of the test's
// dialect (PostgreSQL in the package's PostgreSQL run) and checks that the
// target holds the same rows — ids, documents, figures, check-in history —
// that its tokens authenticate, that its listings answer the same, and that
// a second import is refused unless it replaces.
func TestMoveAccount(t *testing.T) {
	ctx := context.Background()
	src, b := movedAccount(t)
	file := exportOf(t, src, b.AccountID, sqlstore.ExportOptions{Tokens: true})

	dst := sqlstoretest.Open(t)
	other, err := dst.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Already here", Email: "x@here.test"})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := importInto(dst, file, sqlstore.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Recomputed < 120 || rep.Rows["checkins"] == 0 || rep.Rows["tokens"] != 1 {
		t.Fatalf("report %+v: want ≥120 objectives recomputed, check-ins and the admin's token", rep)
	}
	if got, want := rowsOf(t, exportOf(t, dst, b.AccountID, sqlstore.ExportOptions{Tokens: true})), rowsOf(t, file); !slices.Equal(got, want) {
		t.Fatalf("the target's rows differ from the source's: %d rows against %d; first difference: %s", len(got), len(want), firstDiff(got, want))
	}

	c, err := dst.Authenticate(ctx, b.Token)
	if err != nil || c.AccountID != b.AccountID || c.UserID != b.UserID {
		t.Fatalf("the moved token: caller %+v, %v", c, err)
	}
	sc, err := src.Authenticate(ctx, b.Token)
	if err != nil {
		t.Fatal(err)
	}
	want, err := src.ListGoals(upstream.NewContext(ctx, sc), upstream.ListQuery{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	got, err := dst.ListGoals(upstream.NewContext(ctx, c), upstream.ListQuery{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	wj, _ := json.Marshal(want)
	gj, _ := json.Marshal(got)
	if !bytes.Equal(wj, gj) {
		t.Fatalf("listings differ:\nsource %.300s\ntarget %.300s", wj, gj)
	}

	if _, err := importInto(dst, file, sqlstore.ImportOptions{}); !errors.Is(err, sqlstore.ErrAccountExists) {
		t.Fatalf("second import: %v, want ErrAccountExists", err)
	}
	if _, err := importInto(dst, file, sqlstore.ImportOptions{Replace: true}); err != nil {
		t.Fatalf("import --replace: %v", err)
	}
	if got, want := rowsOf(t, exportOf(t, dst, b.AccountID, sqlstore.ExportOptions{Tokens: true})), rowsOf(t, file); !slices.Equal(got, want) {
		t.Fatalf("after --replace the rows differ: %s", firstDiff(got, want))
	}
	if _, err := dst.Authenticate(ctx, other.Token); err != nil {
		t.Fatalf("the other account's token after the imports: %v", err)
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("\n got  %.400s\n want %.400s", a[i], b[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(a), len(b))
}

// TestImportRefusesBadFiles feeds imports files that are cut short, of a
// newer version, edited to name another account, or with a line twice, and
// checks each is refused with the line where it broke and nothing imported.
func TestImportRefusesBadFiles(t *testing.T) {
	ctx := context.Background()
	src, b := movedAccount(t)
	file := exportOf(t, src, b.AccountID, sqlstore.ExportOptions{})
	lines := strings.SplitAfter(strings.TrimSuffix(string(file), "\n"), "\n")
	goalLine := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, `{"t":"goals"`) })
	checkinLine := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, `{"t":"checkins"`) })
	if goalLine < 0 {
		t.Fatal("no goal in the file")
	}

	dst := sqlstoretest.Open(t)
	other, err := dst.Bootstrap(ctx, sqlstore.BootstrapInput{AccountName: "Neighbour", Email: "n@here.test"})
	if err != nil {
		t.Fatal(err)
	}

	edit := func(i int, from, to string) string {
		out := slices.Clone(lines)
		out[i] = strings.Replace(out[i], from, to, 1)
		return strings.Join(out, "")
	}
	cases := []struct {
		name, file, want string
	}{
		{"cut short", strings.Join(lines[:len(lines)/2], ""), "cut short"},
		{"cut mid-line", string(file[:len(file)-40]), "line"},
		{"newer version", edit(0, `"version":1`, `"version":2`), "newer okrgate"},
		{"not a file", "hello\n", "not an okrgate account file"},
		{"row of another account", edit(goalLine, b.AccountID, other.AccountID), "belongs to account"},
		{"a line twice", strings.Join(slices.Insert(slices.Clone(lines), goalLine, lines[goalLine]), ""), "repeats line"},
		{"an id of another account", setColumn(t, lines, goalLine, "owner_id", other.UserID), "another account's row of users"},
		{"a line left out", strings.Join(slices.Delete(slices.Clone(lines), checkinLine, checkinLine+1), ""), "last line counts"},
	}
	for _, tc := range cases {
		_, err := importInto(dst, []byte(tc.file), sqlstore.ImportOptions{})
		if err == nil {
			t.Errorf("%s: imported", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want it to say %q", tc.name, err, tc.want)
		}
		var le *accountfile.LineError
		if tc.want != "" && !errors.As(err, &le) && !errors.Is(err, sqlstore.ErrBadFile) {
			t.Errorf("%s: %v names no line", tc.name, err)
		}
		if _, err := dst.ExportAccount(ctx, b.AccountID, sqlstore.ExportOptions{}, io.Discard); !errors.Is(err, sqlstore.ErrNoAccount) {
			t.Errorf("%s: after the refused import the account is there (%v)", tc.name, err)
		}
	}
	// Nothing of the refused imports is there: the account imports whole.
	if _, err := importInto(dst, file, sqlstore.ImportOptions{}); err != nil {
		t.Fatalf("the unedited file after the refusals: %v", err)
	}
}

// setColumn returns the file of lines with column col of the row at line i
// set to v.
func setColumn(t *testing.T, lines []string, i int, col, v string) string {
	t.Helper()
	var h accountfile.Header
	var row struct {
		T string `json:"t"`
		R []any  `json:"r"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &h); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(lines[i]), &row); err != nil {
		t.Fatal(err)
	}
	row.R[slices.Index(h.Tables[row.T], col)] = v
	b, err := json.Marshal(row)
	if err != nil {
		t.Fatal(err)
	}
	out := slices.Clone(lines)
	out[i] = string(b) + "\n"
	return strings.Join(out, "")
}
