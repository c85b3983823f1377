package rest

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// checkParams rejects query parameters the operation does not take (one
// 400 unknown_parameter naming all of them) and parameters given twice.
func checkParams(r *http.Request, allowed map[string]bool) error {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return upstream.Errorf(upstream.CodeInvalid, "malformed query string: %v", err)
	}
	var unknown []string
	for name := range q {
		if !allowed[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		e := upstream.Errorf(upstream.CodeUnknownParam, "unknown query parameter(s): %s", strings.Join(unknown, ", "))
		for _, name := range unknown {
			e.Fields = append(e.Fields, upstream.FieldError{Field: name, Message: "this operation does not take this query parameter"})
		}
		return e
	}
	for name, vs := range q {
		if len(vs) > 1 {
			return upstream.Invalid(name, "the query parameter is given %d times; give it once", len(vs))
		}
	}
	return nil
}

// view is how a response is shaped for the client: a projection and the
// formatting of text fields. ignored are the names of the projection that
// the resource does not have, as "fields.<path>", for the
// IgnoredFieldsHeader.
type view struct {
	proj    query.Projection
	hasProj bool
	plain   bool
	ignored []string
}

// parseView reads the fields and formatting parameters (each only if sent)
// against the resource registry reg.
func parseView(r *http.Request, reg *query.Registry) (view, error) {
	var v view
	q := r.URL.Query()
	if src := q.Get("fields"); strings.TrimSpace(src) != "" {
		var err error
		if v, err = parseProjection(reg, src); err != nil {
			return view{}, err
		}
	}
	f, err := parseFormatting(q)
	if err != nil {
		return view{}, err
	}
	v.plain = f == upstream.PlainText
	return v, nil
}

// parseProjection reads a fields value as the platform does
// (docs/platform-clients.md, "Compatibility"): a name the resource does not have selects
// nothing and is reported in the view's ignored names, since leaving a field
// out of an answer loses nothing and shows; syntax errors are refused.
func parseProjection(reg *query.Registry, src string) (view, error) {
	p, ignored, err := query.ParseFieldsIgnoring(reg, src)
	if err != nil {
		return view{}, err
	}
	v := view{proj: p, hasProj: true}
	for _, name := range ignored {
		v.ignored = append(v.ignored, "fields."+name)
	}
	return v, nil
}

// parseFormatting validates the formatting parameter: mentionsMarkup (the
// default) or plainText.
func parseFormatting(q url.Values) (string, error) {
	if !q.Has("formatting") {
		return upstream.MentionsMarkup, nil
	}
	switch f := q.Get("formatting"); f {
	case upstream.MentionsMarkup, upstream.PlainText:
		return f, nil
	default:
		return "", upstream.Invalid("formatting", "%q is not a formatting; use mentionsMarkup or plainText", f)
	}
}

// parseList reads the list parameters of a v2 listing — filter, sort,
// fields, skip, the page size named limitName ("limit" or "take"; where it
// is limit, take is its alias) and formatting — validated against reg.
func parseList(r *http.Request, reg *query.Registry, limitName string) (upstream.ListQuery, view, error) {
	q := r.URL.Query()
	var lq upstream.ListQuery
	var err error
	if lq.Filter, err = query.ParseFilter(reg, q.Get("filter")); err != nil {
		return lq, view{}, err
	}
	if src := q.Get("sort"); strings.TrimSpace(src) != "" {
		if lq.Sort, err = query.ParseSort(reg, src); err != nil {
			return lq, view{}, err
		}
	}
	v, err := parseView(r, reg)
	if err != nil {
		return lq, view{}, err
	}
	lq.Fields = v.proj
	if q.Has("include") {
		if v.hasProj {
			return lq, view{}, upstream.Invalid("include", "give fields or include, not both")
		}
		if lq.Fields, err = parseInclude(reg, q.Get("include")); err != nil {
			return lq, view{}, err
		}
	}
	if lq.Skip, err = ParseSkip(q, "skip"); err != nil {
		return lq, view{}, err
	}
	if limitName == "limit" && q.Has("take") {
		// take is the page size of the platform's older endpoints (its
		// v1 clients page with skip/take): the same as limit, on every
		// listing that takes limit.
		if q.Has("limit") {
			return lq, view{}, upstream.Invalid("take", "give limit or take, not both")
		}
		limitName = "take"
	}
	if lq.Limit, err = ParseLimit(q, limitName); err != nil {
		return lq, view{}, err
	}
	return lq, v, nil
}

// parseInclude reads the include parameter (designed for gateways, marked
// x-gateway): the projection handed to the backend, as upstream.ListQuery
// means one — every stored field is kept, and of the costly enrichments and
// embedded objects only those named are computed — while the answer is not
// projected. It is how a client that keeps whole documents (upstream/backend/client)
// passes its caller's projection through. Empty computes none.
func parseInclude(reg *query.Registry, src string) (query.Projection, error) {
	p := query.Projection{"id": nil}
	if strings.TrimSpace(src) == "" {
		return p, nil
	}
	named, err := query.ParseFields(reg, src)
	if err != nil {
		var qe *query.Error
		if errors.As(err, &qe) {
			e := *qe
			e.Param = "include"
			return nil, &e
		}
		return nil, err
	}
	for k, sub := range named {
		p[k] = sub
	}
	return p, nil
}

// ParseSkip reads a skip parameter: an integer ≥ 0, default 0.
func ParseSkip(q url.Values, name string) (int, error) {
	if !q.Has(name) {
		return 0, nil
	}
	s := strings.TrimSpace(q.Get(name))
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, upstream.Invalid(name, "%q is not an integer ≥ 0", q.Get(name))
	}
	return n, nil
}

// ParseLimit reads a limit or take parameter: an integer from 1 to
// upstream.MaxLimit, default upstream.DefaultLimit. Larger values are an
// error, never clamped: a clamped page makes "stop at the first short page"
// clients lose data.
func ParseLimit(q url.Values, name string) (int, error) {
	if !q.Has(name) {
		return upstream.DefaultLimit, nil
	}
	s := strings.TrimSpace(q.Get(name))
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, upstream.Invalid(name, "%q is not an integer", q.Get(name))
	}
	if n < 1 || n > upstream.MaxLimit {
		return 0, upstream.Invalid(name, "%d is out of range; use 1 to %d", n, upstream.MaxLimit)
	}
	return n, nil
}

// ParseBool reads a boolean parameter (true/false, 1/0, as strconv.ParseBool);
// absent is false.
func ParseBool(q url.Values, name string) (bool, error) {
	if !q.Has(name) {
		return false, nil
	}
	b, err := strconv.ParseBool(strings.TrimSpace(q.Get(name)))
	if err != nil {
		return false, upstream.Invalid(name, "%q is not a boolean; use true or false", q.Get(name))
	}
	return b, nil
}

// ComparisonPattern is the grammar of a comparison parameter: an optional
// operator (<, <=, >, >=, = or ==; none means =) and a decimal number,
// blanks allowed around both. ParseComparison accepts exactly what it
// matches (but for numbers too large for a float64), and the OpenAPI
// document gives it as the parameters' pattern, so the two cannot drift.
const ComparisonPattern = `^\s*(<=|>=|==|<|>|=)?\s*[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?\s*$`

var comparisonRE = regexp.MustCompile(ComparisonPattern)

// ParseComparison parses a numeric comparison parameter such as ">0.5",
// "<=0.3" or "0.5" (equality; "=0.5" too) into an upstream.Comparison.
// Blanks around the operator and the number are allowed; NaN, infinities
// and anything else ComparisonPattern does not match are not.
func ParseComparison(name, s string) (upstream.Comparison, error) {
	if !comparisonRE.MatchString(s) {
		return upstream.Comparison{}, upstream.Invalid(name, "%q is not a comparison such as >0.5, <=0.3 or 0.5", s)
	}
	t := strings.TrimSpace(s)
	op := "="
	for _, o := range []string{"<=", ">=", "==", "<", ">", "="} {
		if strings.HasPrefix(t, o) {
			op, t = o, strings.TrimSpace(t[len(o):])
			break
		}
	}
	if op == "==" {
		op = "="
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return upstream.Comparison{}, upstream.Invalid(name, "%q is not a comparison such as >0.5, <=0.3 or 0.5", s)
	}
	return upstream.Comparison{Op: op, Value: v}, nil
}

// CommaList splits a comma-separated parameter, trimming blanks and
// dropping empty elements.
func CommaList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// idList reads a comma-separated list of ids; each must be an id.
func idList(q url.Values, name string) ([]string, error) {
	ids := CommaList(q.Get(name))
	for _, id := range ids {
		if !upstream.ValidID(id) {
			return nil, upstream.Invalid(name, "%q is not an id (24 lowercase hexadecimal characters)", id)
		}
	}
	return ids, nil
}

// dateParam reads a yyyy-mm-dd date parameter; absent is "".
func dateParam(q url.Values, name string) (string, error) {
	s := strings.TrimSpace(q.Get(name))
	if s == "" {
		return "", nil
	}
	t, err := time.Parse(upstream.DateLayout, s)
	if err != nil {
		return "", upstream.Invalid(name, "%q is not a yyyy-mm-dd date", q.Get(name))
	}
	return t.Format(upstream.DateLayout), nil
}

// comparisonParam reads an optional comparison parameter.
func comparisonParam(q url.Values, name string) (*upstream.Comparison, error) {
	if !q.Has(name) || strings.TrimSpace(q.Get(name)) == "" {
		return nil, nil
	}
	c, err := ParseComparison(name, q.Get(name))
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// ParseGroupByOwners reads the query of the goals-grouped-by-owners operation.
func ParseGroupByOwners(q url.Values) (upstream.GroupByOwnersQuery, error) {
	var g upstream.GroupByOwnersQuery
	var err error
	switch f := q.Get("filter"); f {
	case "", "current", "past", "future":
		g.Deadline = f
	default:
		return g, upstream.Invalid("filter", "%q is not a deadline filter; use current, past or future", f)
	}
	if g.IDs, err = idList(q, "ids"); err != nil {
		return g, err
	}
	if g.OwnerIDs, err = idList(q, "ownerIds"); err != nil {
		return g, err
	}
	if g.MetricOwnerIDs, err = idList(q, "metricOwnerId"); err != nil {
		return g, err
	}
	if g.Confidence, err = comparisonParam(q, "confidence"); err != nil {
		return g, err
	}
	if g.Attainment, err = comparisonParam(q, "attainment"); err != nil {
		return g, err
	}
	if g.MetricAttainment, err = comparisonParam(q, "metricAttainment"); err != nil {
		return g, err
	}
	if g.MetricBefore, err = dateParam(q, "metricBefore"); err != nil {
		return g, err
	}
	if g.MetricAfter, err = dateParam(q, "metricAfter"); err != nil {
		return g, err
	}
	if src := q.Get("sort"); strings.TrimSpace(src) != "" {
		if g.Sort.Sort, err = query.ParseSort(upstream.GoalFields, src); err != nil {
			return g, err
		}
	}
	if g.IncludeMetrics, err = ParseBool(q, "includeMetrics"); err != nil {
		return g, err
	}
	if g.Skip, err = ParseSkip(q, "skip"); err != nil {
		return g, err
	}
	if g.Take, err = ParseLimit(q, "take"); err != nil {
		return g, err
	}
	return g, nil
}

// pathID returns the path parameter name of r; an id that is not 24
// lowercase hex characters cannot name anything and is 404 not_found.
func pathID(r *http.Request, name, kind string) (string, error) {
	id := urlParam(r, name)
	if !upstream.ValidID(id) {
		return "", upstream.NotFound(kind, id)
	}
	return id, nil
}

// jsonFilter builds a filter source with the values JSON-encoded, for
// filters the facade derives from path parameters.
func jsonFilter(format string, values ...string) string {
	args := make([]any, len(values))
	for i, v := range values {
		b, _ := json.Marshal(v)
		args[i] = string(b)
	}
	return fmt.Sprintf(format, args...)
}
