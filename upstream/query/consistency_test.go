package query

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// filterGen generates random valid filters from the grammar of the language,
// with values drawn from the pools the documents use.
type filterGen struct {
	r      *rand.Rand
	ids    []string
	fields []Field
}

func newFilterGen(r *rand.Rand, docs []map[string]any) *filterGen {
	g := &filterGen{r: r}
	for _, d := range docs {
		g.ids = append(g.ids, d["id"].(string))
	}
	for _, f := range testReg.Fields() {
		if f.Filterable {
			g.fields = append(g.fields, f)
		}
	}
	return g
}

// key renders an object key quoted or, sometimes, unquoted.
func (g *filterGen) key(k string) string {
	if g.r.IntN(2) == 0 {
		return k
	}
	return g.str(k)
}

// str renders a string literal with double or, sometimes, single quotes.
func (g *filterGen) str(s string) string {
	if g.r.IntN(4) == 0 && !strings.ContainsAny(s, `'"\`) {
		return "'" + s + "'"
	}
	data, _ := json.Marshal(s)
	return string(data)
}

func (g *filterGen) filter(depth int) string {
	n := 1 + g.r.IntN(3)
	used := map[string]bool{}
	var members []string
	for range n {
		if depth < 2 && g.r.IntN(4) == 0 {
			op := pick(g.r, []string{"$and", "$or", "$nor"})
			if used[op] {
				continue
			}
			used[op] = true
			var subs []string
			for range 1 + g.r.IntN(3) {
				subs = append(subs, g.filter(depth+1))
			}
			members = append(members, g.key(op)+":["+strings.Join(subs, ",")+"]")
			continue
		}
		f := pick(g.r, g.fields)
		if used[f.Name] {
			continue
		}
		used[f.Name] = true
		name := f.Name
		if name == "id" && g.r.IntN(3) == 0 {
			name = "_id"
		}
		members = append(members, g.key(name)+":"+g.cond(f, 0))
	}
	return "{" + strings.Join(members, ", ") + "}"
}

func (g *filterGen) cond(f Field, depth int) string {
	if depth == 0 && g.r.IntN(4) == 0 {
		if g.r.IntN(5) == 0 {
			return "null"
		}
		return g.value(f)
	}
	ops := []string{"$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists", "$not"}
	if f.Type.textual() {
		ops = append(ops, "$regex", "$regex")
	}
	used := map[string]bool{}
	var members []string
	for range 1 + g.r.IntN(2) {
		op := pick(g.r, ops)
		if used[op] || (op == "$not" && depth > 1) {
			continue
		}
		used[op] = true
		var v string
		switch op {
		case "$eq", "$ne":
			v = g.value(f)
			if g.r.IntN(6) == 0 {
				v = "null"
			}
		case "$in", "$nin":
			var vs []string
			for range g.r.IntN(4) {
				if g.r.IntN(6) == 0 {
					vs = append(vs, "null")
				} else {
					vs = append(vs, g.value(f))
				}
			}
			v = "[" + strings.Join(vs, ",") + "]"
		case "$exists":
			v = pick(g.r, []string{"true", "false"})
		case "$regex":
			v = g.str(pick(g.r, poolRegexes))
			if g.r.IntN(3) == 0 {
				v += ", $options: " + pick(g.r, []string{`"i"`, `''`})
			}
		case "$not":
			if f.Type.textual() && g.r.IntN(3) == 0 {
				v = g.str(pick(g.r, poolRegexes))
			} else {
				v = g.cond(f, depth+1)
				if !strings.HasPrefix(v, "{") {
					v = "{$eq:" + v + "}"
				}
			}
		default:
			v = g.value(f)
		}
		members = append(members, g.key(op)+": "+v)
	}
	if len(members) == 0 {
		return "{$exists: true}"
	}
	return "{" + strings.Join(members, ", ") + "}"
}

func (g *filterGen) value(f Field) string {
	r := g.r
	id := func(pool []string) string {
		s := pick(r, pool)
		if r.IntN(5) == 0 {
			s = strings.ToUpper(s)
		}
		return g.str(s)
	}
	switch f.Name {
	case "id", "parentId":
		return id(g.ids[:30])
	case "accountId":
		return id(poolAccounts)
	case "sessionId":
		return id(poolSessions)
	case "ownerIds":
		return g.str(pick(r, poolUsers))
	case "tags":
		return g.str(pick(r, poolTags))
	case "closedStatus.status":
		return g.str(pick(r, append([]string{"x", "Active"}, poolStatus...)))
	}
	switch f.Type {
	case String:
		return g.str(pick(r, poolNames))
	case Number:
		if r.IntN(2) == 0 {
			return fmt.Sprint(pick(r, poolNumbers))
		}
		return fmt.Sprint(float64(r.IntN(2000)-500) / 1000)
	case Integer:
		return fmt.Sprint(r.IntN(5) - 1)
	case Bool:
		return pick(r, []string{"true", "false"})
	case Date:
		return g.str(pick(r, poolDates))
	case DateTime:
		t, _ := time.Parse(DateTimeLayout, pick(r, poolTimes))
		switch r.IntN(4) {
		case 0:
			return g.str(t.In(time.FixedZone("", 2*3600)).Format(time.RFC3339Nano))
		case 1:
			return g.str(t.Format("2006-01-02"))
		case 2:
			return g.str(t.Format(time.RFC3339))
		}
		return g.str(t.Format(DateTimeLayout))
	}
	panic("no value for " + f.Name)
}

// handFilters are filters written out by hand to cover the semantics the
// consistency property must hold for, whatever the generator does.
var handFilters = []string{
	`{}`,
	`{name: null}`, `{name: {$ne: null}}`, `{name: {$eq: ""}}`, `{name: {$ne: "Alpha"}}`,
	`{name: {$gt: "B"}}`, `{name: {$not: {$gt: "B"}}}`, `{name: {$lte: "alpha"}}`,
	`{name: {$in: ["Alpha", null]}}`, `{name: {$nin: ["Alpha", null]}}`, `{name: {$in: []}}`, `{name: {$nin: []}}`,
	`{name: {$regex: "^a", $options: "i"}}`, `{name: {$not: "^a"}}`, `{name: {$regex: "ü"}}`,
	`{name: {$exists: true}}`, `{name: {$exists: false}}`,
	`{attainment: {$gte: 0.5, $lt: 3}}`, `{attainment: 1}`, `{attainment: {$ne: 1}}`, `{attainment: {$in: [0, 2, null]}}`,
	`{priority: {$gt: 1}}`, `{priority: {$nin: [0, 1]}}`,
	`{isActive: true}`, `{isActive: false}`, `{isActive: {$ne: true}}`, `{isActive: {$gt: false}}`, `{isActive: null}`,
	`{archived: true}`, `{archived: {$ne: true}}`, `{archived: null}`, `{archived: {$exists: false}}`,
	`{createdAt: {$gte: "2026-01-01"}}`, `{createdAt: {$lt: "2026-01-01T01:00:00+02:00"}}`,
	`{dueDate: {$in: ["2026-01-01", "2027-01-01"]}}`, `{dueDate: {$regex: "^2026-"}}`,
	`{ownerIds: "0b0000000000000000000001"}`, `{ownerIds: {$ne: "0b0000000000000000000001"}}`,
	`{ownerIds: {$in: ["0b0000000000000000000001", "0b0000000000000000000002"]}}`,
	`{ownerIds: {$nin: ["0b0000000000000000000001"]}}`, `{ownerIds: null}`, `{ownerIds: {$exists: false}}`,
	`{ownerIds: {$gt: "0b0000000000000000000005"}}`, `{ownerIds: {$regex: "3$"}}`, `{ownerIds: {$not: {$regex: "3$"}}}`,
	`{tags: {$regex: "^growth$", $options: "i"}}`, `{tags: {$in: [null]}}`,
	`{"closedStatus.status": "active"}`, `{"closedStatus.status": null}`, `{"closedStatus.status": {$exists: true}}`,
	`{parentId: null}`, `{parentId: {$ne: null}}`, `{parentId: {$regex: "^$"}}`, `{parentId: {$exists: true}}`,
	`{accountId: "A00000000000000000000001"}`, `{_id: {$in: []}}`,
	`{$or: [{name: "Alpha"}, {attainment: {$gt: 1}}]}`, `{$nor: [{name: "Alpha"}, {isActive: true}]}`,
	`{$and: [{name: {$exists: true}}, {$or: [{priority: 0}, {priority: null}]}]}`,
	`{$nor: [{attainment: {$gt: 0}}]}`,
}

func TestSQLMatchConsistency(t *testing.T) {
	r := rand.New(rand.NewPCG(20261122, 1))
	docs := roundTrip(t, genDocs(r, 200))
	db := openDB(t, docs)
	gen := newFilterGen(r, docs)

	filters := slices.Clone(handFilters)
	for range 3000 {
		filters = append(filters, gen.filter(0))
	}
	nonEmpty, notAll := 0, 0
	for _, src := range filters {
		e, err := ParseFilter(testReg, src)
		if err != nil {
			if strings.Contains(err.Error(), "$regex conditions") {
				continue // a generated filter over MaxRegexConditions
			}
			t.Fatalf("ParseFilter(%s): %v", src, err)
		}
		where, args := e.SQL(SQLite, testReg, "doc", 0)
		got := queryIDs(t, db, where, "", args)
		want := []string{}
		for _, d := range docs {
			if e.Match(d) {
				want = append(want, d["id"].(string))
			}
		}
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Fatalf("filter %s\ncanonical %s\nSQL %s %v\nonly SQL:   %v\nonly Match: %v", src, e, where, args, minus(got, want), minus(want, got))
		}
		if len(got) > 0 {
			nonEmpty++
		}
		if len(got) < len(docs) {
			notAll++
		}

		// The canonical form parses to an equivalent expression.
		e2, err := ParseFilter(testReg, e.String())
		if err != nil {
			t.Fatalf("ParseFilter(canonical %s of %s): %v", e, src, err)
		}
		if e2.String() != e.String() {
			t.Fatalf("canonical form not stable: %s → %s", e, e2)
		}
		for _, d := range docs {
			if e.Match(d) != e2.Match(d) {
				t.Fatalf("canonical form %s of %s matches differently on %v", e, src, d)
			}
		}

		checkPostgres(t, e)
	}
	// The property is only meaningful if filters select proper subsets.
	if nonEmpty < len(filters)/4 || notAll < len(filters)/2 {
		t.Fatalf("generated filters are degenerate: %d of %d select something, %d select less than everything", nonEmpty, len(filters), notAll)
	}
	t.Logf("%d filters: %d non-empty, %d proper subsets", len(filters), nonEmpty, notAll)
}

var pgPlaceholder = regexp.MustCompile(`\$[0-9]+`)

// checkPostgres checks the string-level invariants of the Postgres SQL of e:
// placeholders $n numbered consecutively from argStart+1, one per argument,
// no "?" placeholders, and the SQLite and Postgres argument lists agree
// except for the representation of booleans.
func checkPostgres(t *testing.T, e *Expr) {
	t.Helper()
	const argStart = 3
	where, args := e.SQL(Postgres, testReg, "g.doc", argStart)
	marks := pgPlaceholder.FindAllString(where, -1)
	if len(marks) != len(args) {
		t.Fatalf("Postgres SQL %s has %d placeholders for %d args", where, len(marks), len(args))
	}
	for i, m := range marks {
		if m != fmt.Sprintf("$%d", argStart+i+1) {
			t.Fatalf("Postgres SQL %s: placeholder %d is %s", where, i, m)
		}
	}
	if strings.Contains(where, "?") || strings.Contains(where, "json_extract") {
		t.Fatalf("Postgres SQL uses SQLite syntax: %s", where)
	}
	_, sqliteArgs := e.SQL(SQLite, testReg, "doc", 0)
	if len(sqliteArgs) != len(args) {
		t.Fatalf("SQLite has %d args, Postgres %d", len(sqliteArgs), len(args))
	}
}

func TestOrderByLessConsistency(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	docs := roundTrip(t, genDocs(r, 200))
	db := openDB(t, docs)
	var sortable []string
	for _, f := range testReg.Fields() {
		if f.Sortable {
			sortable = append(sortable, f.Name)
		}
	}
	gen := newFilterGen(r, docs)
	for i := range 500 {
		var specs []string
		used := map[string]bool{}
		for range 1 + r.IntN(3) {
			name := pick(r, sortable)
			if used[name] {
				continue
			}
			used[name] = true
			if r.IntN(2) == 0 {
				name = "-" + name
			}
			specs = append(specs, name)
		}
		spec := strings.Join(specs, ",")
		keys, err := ParseSort(testReg, spec)
		if err != nil {
			t.Fatalf("ParseSort(%q): %v", spec, err)
		}
		var e *Expr
		if i%2 == 1 {
			if e, err = ParseFilter(testReg, gen.filter(0)); err != nil {
				t.Fatal(err)
			}
		}
		where, args := e.SQL(SQLite, testReg, "doc", 0)
		orderBy := OrderBy(SQLite, testReg, "doc", keys)
		got := queryIDs(t, db, where, orderBy, args)

		var sel []map[string]any
		for _, d := range docs {
			if e.Match(d) {
				sel = append(sel, d)
			}
		}
		less := Less(keys)
		sort.SliceStable(sel, func(i, j int) bool { return less(sel[i], sel[j]) })
		want := []string{}
		for _, d := range sel {
			want = append(want, d["id"].(string))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("sort %q (filter %s)\nORDER BY %s\nSQL  %v\nLess %v", spec, e, orderBy, got, want)
		}
	}
}

// minus returns the elements of a that are not in b.
func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
