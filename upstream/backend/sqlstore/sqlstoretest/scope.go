package sqlstoretest

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// AccountTables are the tables that hold an account's data, each with the
// column that names the account: every statement that reads or writes one
// must constrain that column (docs/decisions/citus.md, "Every statement names its
// account"). A table added to the schema with an account_id column belongs
// here; TestAccountTablesListed checks the list against the schema.
var AccountTables = map[string]string{
	"users": "account_id", "tokens": "account_id", "teams": "account_id", "sessions": "account_id",
	"goals": "account_id", "metrics": "account_id", "checkins": "account_id", "tasks": "account_id",
	"tags": "account_id", "item_tags": "account_id", "roles": "account_id", "role_mappings": "account_id",
	"permissions": "account_id", "dashboards": "account_id", "dashboard_parameters": "account_id",
	"badges": "account_id", "badge_assignments": "account_id", "kpi_groups": "account_id",
	"kpi_favorites": "account_id", "kpis": "account_id", "lists": "account_id", "announcements": "account_id",
	"idempotency_keys": "account_id", "goal_subtrees": "account_id", "events": "account_id",
	"webhooks": "account_id", "webhook_deliveries": "account_id", "identities": "account_id",
	"avatars": "account_id", "comments": "account_id",
}

// GlobalTables are the tables statements may read and write without naming
// an account: accounts, the directory of accounts (one row each, keyed by
// the id every other table calls account_id; names and domains are unique
// across it, so it is read across accounts); token_accounts, the account
// of each token by its hash, which authentication reads before it knows
// the account (on Citus a reference table); the migration tool's version
// table and the databases' own catalogues.
var GlobalTables = []string{"accounts", "token_accounts", "goose_db_version", "sqlite_master", "sqlite_schema",
	"sqlite_stat1", "pg_catalog", "information_schema"}

// CrossAccount are the reasons a statement may read or write several
// accounts' rows at once, each spelled in the statement as the SQL comment
// "/* all accounts: <reason> */". A statement with a reason not listed here
// fails the check: a new one is a decision, documented in docs/decisions/citus.md
// beside these.
var CrossAccount = []string{
	"webhook dispatch", // the dispatcher serves every account's webhooks from one queue
	"retention",        // pruning old events, deliveries and idempotency keys is server-wide housekeeping
	"operator",         // an operator's command on the database (okrgate token create) finds a user of any account by id
	"authentication",   // a bearer token is read by its hash, with its user and account, before the account is known
}

var (
	crossAccountRe = regexp.MustCompile(`/\* all accounts: ([^*]+) \*/`)
	literalRe      = regexp.MustCompile(`'(?:[^']|'')*'`)
	commentRe      = regexp.MustCompile(`(?s)/\*.*?\*/|--[^\n]*`)
	tableRe        = regexp.MustCompile(`\b(from|join|update|into)\s+([a-z_][a-z0-9_]*)`)
	aliasRe        = regexp.MustCompile(`^\s+(?:as\s+)?([a-z_][a-z0-9_]*)`)
	// columnRe finds a reference to an account column, qualified or not,
	// and what it is compared with.
	columnRe = regexp.MustCompile(`(?:\b([a-z_][a-z0-9_]*)\.)?\b(account_id)\b\s*(=|\bin\b)\s*(?:([a-z_][a-z0-9_]*)\.(account_id)\b)?`)
	// derivedRe finds a derived table and its alias.
	derivedRe = regexp.MustCompile(`\b(?:from|join)\s+\(subquery#(\d+)\)\s*(?:as\s+)?([a-z_][a-z0-9_]*)?`)
	// reversedRe finds "<value> = alias.account_id" (a value on the left).
	reversedRe = regexp.MustCompile(`[?$0-9')]\s*=\s*([a-z_][a-z0-9_]*)\.(account_id)\b`)
)

// notAlias are the words that may follow a table name and are not its alias.
var notAlias = map[string]bool{"where": true, "join": true, "left": true, "right": true, "inner": true, "outer": true,
	"cross": true, "natural": true, "on": true, "set": true, "values": true, "order": true, "group": true,
	"limit": true, "using": true, "select": true, "default": true, "returning": true, "for": true, "union": true,
	"except": true, "intersect": true, "having": true, "window": true, "offset": true, "as": true, "do": true,
	"on_conflict": true, "full": true, "indexed": true, "not": true}

// CheckAccountScope returns nil when stmt constrains the account column of
// every account table it names, and otherwise an error naming the tables
// it leaves open; reason is the cross-account reason stmt declares, if
// any, in which case the statement is not checked further.
//
// The check reads the statement's text, not a parse tree: each
// parenthesised SELECT is a scope, whose aliases its nested scopes see. A
// table named in a scope is constrained when its alias's (or, unqualified,
// its scope's) account column is compared with a value (= or IN), or
// equated with the account column of a constrained table (a join on
// account_id), or when it is the target of an INSERT whose column list
// holds the column; a table inside a derived table (FROM (SELECT ...
// account_id ... ) AS x) is constrained by a constraint on x. It errs
// towards failing: a statement it cannot see constrained is reported.
func CheckAccountScope(stmt string) (reason string, err error) {
	if m := crossAccountRe.FindStringSubmatch(stmt); m != nil {
		return m[1], nil
	}
	text := strings.ToLower(commentRe.ReplaceAllString(stmt, " "))
	text = literalRe.ReplaceAllString(text, "''")
	scopes := splitScopes(text)

	// refs[i] maps the keys (aliases, or table names) of scope i to their
	// account column; derived tables have key "#N" when unaliased.
	refs := make([]map[string]string, len(scopes))
	var real []node // the account tables, which must be constrained
	tables := map[node]string{}
	edges := map[node][]node{}
	link := func(a, b node) { edges[a] = append(edges[a], b); edges[b] = append(edges[b], a) }
	constrained := map[node]bool{}
	for i, sc := range scopes {
		refs[i] = map[string]string{}
		for _, m := range tableRe.FindAllStringSubmatchIndex(sc.text, -1) {
			verb, table := sc.text[m[2]:m[3]], sc.text[m[4]:m[5]]
			col, ok := AccountTables[table]
			if !ok {
				continue
			}
			key := table
			if a := aliasRe.FindStringSubmatch(sc.text[m[5]:]); a != nil && !notAlias[a[1]] {
				key = a[1]
			}
			refs[i][key] = col
			n := node{i, key}
			real = append(real, n)
			tables[n] = table
			if verb == "into" {
				// INSERT INTO t (cols...): the row names its account when the
				// column list holds the account column.
				rest := strings.TrimSpace(sc.text[m[1]:])
				if cols, _, ok := strings.Cut(rest, ")"); ok && strings.HasPrefix(rest, "(") &&
					slices.Contains(splitCols(cols[1:]), col) {
					constrained[n] = true
				}
			}
		}
	}
	for i, sc := range scopes {
		for _, m := range derivedRe.FindAllStringSubmatch(sc.text, -1) {
			inner, _ := strconv.Atoi(m[1])
			key := m[2]
			if key == "" || notAlias[key] {
				key = "#" + m[1]
			}
			if !strings.Contains(scopes[inner].text, "account_id") {
				continue
			}
			refs[i][key] = "account_id"
			for k, col := range refs[inner] {
				if col == "account_id" {
					link(node{i, key}, node{inner, k})
				}
			}
		}
	}
	// resolve finds the nodes a column reference of scope i names.
	resolve := func(i int, qual, column string) []node {
		if qual == "" {
			var out []node
			for k, col := range refs[i] {
				if col == column {
					out = append(out, node{i, k})
				}
			}
			return out
		}
		for s := i; s >= 0; s = scopes[s].parent {
			if col, ok := refs[s][qual]; ok {
				if col == column {
					return []node{{s, qual}}
				}
				return nil
			}
		}
		return nil
	}
	for i, sc := range scopes {
		for _, m := range columnRe.FindAllStringSubmatch(sc.text, -1) {
			lhs := resolve(i, m[1], m[2])
			if m[4] != "" {
				for _, a := range lhs {
					for _, b := range resolve(i, m[4], m[5]) {
						link(a, b)
					}
				}
				continue
			}
			for _, a := range lhs {
				constrained[a] = true
			}
		}
		for _, m := range reversedRe.FindAllStringSubmatch(sc.text, -1) {
			for _, a := range resolve(i, m[1], m[2]) {
				constrained[a] = true
			}
		}
	}
	// A table joined on the account column to a constrained one is
	// constrained too.
	reach := map[node]bool{}
	var walk func(n node)
	walk = func(n node) {
		if reach[n] {
			return
		}
		reach[n] = true
		for _, o := range edges[n] {
			walk(o)
		}
	}
	for n := range constrained {
		walk(n)
	}
	var open []string
	for _, n := range real {
		if !reach[n] && !slices.Contains(open, tables[n]) {
			open = append(open, tables[n])
		}
	}
	if len(open) > 0 {
		return "", fmt.Errorf("%s not constrained by account", strings.Join(open, ", "))
	}
	return "", nil
}

// node is a table of a statement: its scope and its key there.
type node struct {
	scope int
	key   string
}

func splitCols(s string) []string {
	var out []string
	for _, c := range strings.Split(s, ",") {
		out = append(out, strings.TrimSpace(c))
	}
	return out
}

// scope is one SELECT of a statement: its text, with its nested scopes
// replaced by "(subquery#N)", and the scope it is nested in (-1: none).
type scope struct {
	text   string
	parent int
}

// splitScopes returns the scopes of stmt: the statement itself and every
// parenthesised group that starts a SELECT (or WITH, VALUES). Groups that
// do not start a query (conditions, column lists, function calls) stay in
// their scope's text.
func splitScopes(stmt string) []scope {
	texts := []*strings.Builder{{}}
	parents := []int{-1}
	stack := []int{0} // the scope each open parenthesis writes to
	for i := 0; i < len(stmt); i++ {
		c := stmt[i]
		cur := stack[len(stack)-1]
		switch c {
		case '(':
			rest := strings.TrimLeft(stmt[i+1:], " \t\n")
			if strings.HasPrefix(rest, "select") || strings.HasPrefix(rest, "with") || strings.HasPrefix(rest, "values") {
				texts = append(texts, &strings.Builder{})
				parents = append(parents, cur)
				fmt.Fprintf(texts[cur], " (subquery#%d) ", len(texts)-1)
				stack = append(stack, len(texts)-1)
				continue
			}
			stack = append(stack, cur)
			texts[cur].WriteByte(c)
		case ')':
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
			if stack[len(stack)-1] == cur {
				texts[cur].WriteByte(c)
			}
		default:
			texts[cur].WriteByte(c)
		}
	}
	out := make([]scope, len(texts))
	for i := range texts {
		out[i] = scope{texts[i].String(), parents[i]}
	}
	return out
}

// ScopeChecker collects the statements of a store (give Observe to
// sqlstore.WithStatementObserver) that CheckAccountScope refuses, and the
// cross-account reasons seen. A statement text is checked once (the check
// depends on the text alone), however often it runs.
type ScopeChecker struct {
	mu      sync.Mutex
	bad     map[string]string // statement → what is wrong
	reasons map[string]int
	n       int
	checked map[string]checked // statement text → its verdict
}

// checked is CheckAccountScope's verdict on one statement text.
type checked struct {
	reason string
	err    error
}

// Observe checks one statement.
func (c *ScopeChecker) Observe(stmt string, _ []any) {
	c.mu.Lock()
	v, ok := c.checked[stmt]
	c.mu.Unlock()
	if !ok {
		v.reason, v.err = CheckAccountScope(stmt)
	}
	reason, err := v.reason, v.err
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	if c.reasons == nil {
		c.reasons, c.bad, c.checked = map[string]int{}, map[string]string{}, map[string]checked{}
	}
	c.checked[stmt] = v
	switch {
	case err != nil:
		c.bad[strings.Join(strings.Fields(stmt), " ")] = err.Error()
	case reason != "":
		c.reasons[reason]++
		if !slices.Contains(CrossAccount, reason) {
			c.bad[strings.Join(strings.Fields(stmt), " ")] = fmt.Sprintf("cross-account reason %q is not in CrossAccount", reason)
		}
	}
}

// Check fails t for every refused statement, and when fewer than min
// statements were seen (the drivers did not run); it logs the
// cross-account reasons seen.
func (c *ScopeChecker) Check(t testing.TB, min int) {
	t.Helper()
	bad, seen, reasons := c.Report()
	stmts := slices.Sorted(maps.Keys(bad))
	for _, s := range stmts {
		t.Errorf("%s:\n\t%s", bad[s], s)
	}
	if seen < min {
		t.Errorf("%d statements observed, fewer than %d: the drivers did not run", seen, min)
	}
	t.Logf("%d statements checked, %d refused; cross-account by reason: %v", seen, len(bad), reasons)
}

// Report returns the refused statements (statement → what is wrong), how
// many statements were seen, and the cross-account reasons with their
// counts.
func (c *ScopeChecker) Report() (bad map[string]string, seen int, reasons map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.bad), c.n, maps.Clone(c.reasons)
}
