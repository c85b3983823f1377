package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/query"
)

// fill returns route with its {parameters} replaced, in order, by args
// (path-escaped).
func fill(route string, args ...string) string {
	if len(args) == 0 {
		return route
	}
	var b strings.Builder
	rest := route
	for _, a := range args {
		i := strings.IndexByte(rest, '{')
		j := strings.IndexByte(rest, '}')
		if i < 0 || j < i {
			break
		}
		b.WriteString(rest[:i])
		b.WriteString(url.PathEscape(a))
		rest = rest[j+1:]
	}
	b.WriteString(rest)
	return b.String()
}

// listing is a list operation of the REST API: its route, the registry its
// filter, sort and fields are validated against, and the name of its page
// size parameter ("limit" or "take").
type listing struct {
	route string
	reg   *query.Registry
	limit string
	// extra are further query parameters (includeDemo, name).
	extra url.Values
	// enriched: the listing computes enrichments and takes include, the
	// projection passed through (Capabilities.Include); include: send it.
	enriched, include bool
}

// fieldsOf is the field registry of the resource whose items are T
// (upstream.FieldsOf): the registry of the generated listings (api_gen.go),
// whose generator checks that upstream.Resources has the item.
func fieldsOf[T any]() *query.Registry { return upstream.FieldsOf(reflect.TypeFor[T]()) }

// values encodes q exactly as the facade parses it (rest.parseList):
// filter in its canonical JSON form, sort as "-field,field", the projection
// (include, or else fields: encodeFields), skip and the page size.
func (l listing) values(q upstream.ListQuery) url.Values {
	v := url.Values{}
	for k, vs := range l.extra {
		v[k] = vs
	}
	if q.Filter != nil {
		v.Set("filter", q.Filter.String())
	}
	if len(q.Sort) > 0 {
		v.Set("sort", encodeSort(q.Sort))
	}
	switch {
	case l.include && q.Fields != nil:
		// include means what ListQuery.Fields means: stored fields whole,
		// only the named enrichments computed.
		v.Set("include", writeProjection(q.Fields))
	default:
		if f := encodeFields(l.reg, q.Fields); f != "" {
			v.Set("fields", f)
		}
	}
	if q.Skip > 0 {
		v.Set("skip", strconv.Itoa(q.Skip))
	}
	limit := "limit"
	if l.limit != "" {
		limit = l.limit
	}
	v.Set(limit, strconv.Itoa(q.PageLimit()))
	return v
}

// encodeSort writes sort keys as the sort parameter: "-attainment,name".
func encodeSort(keys []query.SortKey) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k.Field
		if k.Desc {
			parts[i] = "-" + k.Field
		}
	}
	return strings.Join(parts, ",")
}

// embedded are the fields a listing returns only when the projection names
// them (goals' key results and tasks).
var embedded = []string{"metrics", "tasks"}

// encodeFields writes the fields parameter for projection p. upstream.API
// and the REST facade read a projection differently: the API keeps every
// stored field and uses the projection to skip costly enrichments, the
// facade returns only the projected fields. So the client sends no fields
// at all unless p names an embedded object (whose default is absent), and
// then every field of the registry with p's sub-projections, each widened
// the same way: the answer is then what the API would return, or a
// superset of it (enrichments p leaves out are still computed).
func encodeFields(reg *query.Registry, p query.Projection) string {
	if p == nil || reg == nil {
		return ""
	}
	named := false
	for _, e := range embedded {
		if _, ok := p[e]; ok {
			named = true
		}
	}
	if !named {
		return ""
	}
	return writeProjection(widen(reg, p))
}

// widen returns p with every top-level field of reg added whole, and the
// sub-projections of object fields widened by their own registries.
func widen(reg *query.Registry, p query.Projection) query.Projection {
	out := query.Projection{}
	for _, f := range reg.Fields() {
		head, _, _ := strings.Cut(f.Name, ".")
		if slices.Contains(embedded, head) {
			continue
		}
		out[head] = nil
	}
	for k, sub := range p {
		f, ok := reg.Field(k)
		switch {
		case sub == nil:
			out[k] = nil
		case ok && f.Sub != nil:
			out[k] = widen(f.Sub, sub)
		default:
			out[k] = sub
		}
	}
	return out
}

// writeProjection writes p in the fields syntax: "a,b,c{d,e}", keys sorted.
func writeProjection(p query.Projection) string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k)
		if sub := p[k]; sub != nil {
			b.WriteByte('{')
			b.WriteString(writeProjection(sub))
			b.WriteByte('}')
		}
	}
	return b.String()
}

// rawPage is a listing's envelope with its items undecoded: {items,
// totalCount} ({count, items, totalCount} too), or the tag listing's {tags,
// totalCount}.
type rawPage struct {
	Items      []json.RawMessage `json:"items"`
	Tags       []json.RawMessage `json:"tags"`
	TotalCount int               `json:"totalCount"`
}

func (p rawPage) items() []json.RawMessage {
	if p.Items == nil {
		return p.Tags
	}
	return p.Items
}

// list runs listing l with q. A query whose URL would exceed MaxURLBytes is
// split on its largest $in list into as few calls as fit (mergeParts).
func list[T any](ctx context.Context, c *Client, l listing, q upstream.ListQuery) (upstream.Page[T], error) {
	raws, total, err := c.listRaw(ctx, l, q)
	if err != nil {
		return upstream.Page[T]{}, err
	}
	items := make([]T, len(raws))
	for i, r := range raws {
		if err := json.Unmarshal(r, &items[i]); err != nil {
			return upstream.Page[T]{}, upstream.Errorf(upstream.CodeUnavailable, "GET %s: the upstream answered an unreadable item: %v", l.route, err)
		}
	}
	return upstream.Page[T]{Items: items, TotalCount: total}, nil
}

// listRaw runs l with q and returns the undecoded items and the total.
func (c *Client) listRaw(ctx context.Context, l listing, q upstream.ListQuery) ([]json.RawMessage, int, error) {
	l.include = l.enriched && c.opts.Capabilities.Include
	k := call{method: http.MethodGet, route: l.route, path: l.route, query: l.values(q)}
	// The REST API takes at most query.MaxInValues values in one $in: a
	// loader's level of any size is split into as many calls as it needs.
	least := (query.InSize(q.Filter) + query.MaxInValues - 1) / query.MaxInValues
	if n := len(c.url(k)) - len(c.base); n <= c.opts.MaxURLBytes && least <= 1 {
		var p rawPage
		_, err := c.do(ctx, k, &p)
		return p.items(), p.TotalCount, err
	}
	for n := max(2, least); ; n++ {
		parts, ok := query.SplitIn(q.Filter, n)
		if !ok {
			var p rawPage
			_, err := c.do(ctx, k, &p) // nothing to split: the bound refuses it
			return p.items(), p.TotalCount, err
		}
		fits := true
		for _, f := range parts {
			pq := q
			pq.Filter = f
			if len(c.url(call{path: l.route, query: l.values(pq)}))-len(c.base) > c.opts.MaxURLBytes {
				fits = false
				break
			}
		}
		if fits || len(parts) < n {
			return c.mergeParts(ctx, l, q, parts)
		}
	}
}

// mergeParts runs q once per part of its filter and merges the pages as one
// call with the whole filter would answer: items without duplicates (an
// item of a list field can match two parts), in q's order, from q.Skip, at
// most q.PageLimit() of them; the total is the sum less the duplicates
// seen. Each part is read from its start up to q.Skip + q.PageLimit() items
// (in pages of upstream.MaxLimit), since any of them may fall in the page.
func (c *Client) mergeParts(ctx context.Context, l listing, q upstream.ListQuery, parts []*query.Expr) ([]json.RawMessage, int, error) {
	type doc struct {
		raw json.RawMessage
		m   map[string]any
	}
	var docs []doc
	seen := map[string]bool{}
	total := 0
	need := q.Skip + q.PageLimit()
	for _, f := range parts {
		for got := 0; got < need; {
			pq := q
			pq.Filter, pq.Skip, pq.Limit = f, got, min(upstream.MaxLimit, need-got)
			var p rawPage
			if _, err := c.do(ctx, call{method: http.MethodGet, route: l.route, path: l.route, query: l.values(pq)}, &p); err != nil {
				return nil, 0, err
			}
			if f != parts[0] || got > 0 {
				c.m.splits.WithLabelValues(l.route).Inc()
			}
			if got == 0 {
				total += p.TotalCount
			}
			for _, r := range p.items() {
				var m map[string]any
				if err := json.Unmarshal(r, &m); err != nil {
					return nil, 0, upstream.Errorf(upstream.CodeUnavailable, "GET %s: the upstream answered an unreadable item: %v", l.route, err)
				}
				id, _ := m["id"].(string)
				if id != "" && seen[id] {
					total--
					continue
				}
				seen[id] = true
				docs = append(docs, doc{r, m})
			}
			got += len(p.items())
			if len(p.items()) < pq.Limit || got >= p.TotalCount {
				break
			}
		}
	}
	less := query.Less(q.Sort)
	sort.SliceStable(docs, func(i, j int) bool { return less(docs[i].m, docs[j].m) })
	docs = docs[min(q.Skip, len(docs)):]
	docs = docs[:min(len(docs), q.PageLimit())]
	out := make([]json.RawMessage, len(docs))
	for i, d := range docs {
		out[i] = d.raw
	}
	return out, total, nil
}

// get reads the resource at route (its parameters filled by args).
func get[T any](ctx context.Context, c *Client, route string, args ...string) (T, error) {
	var out T
	_, err := c.do(ctx, call{method: http.MethodGet, route: route, path: fill(route, args...), id: lastOf(args)}, &out)
	return out, err
}

// write sends body with method to route and decodes the answer.
func write[T any](ctx context.Context, c *Client, method, route string, body any, args ...string) (T, error) {
	var out T
	_, err := c.do(ctx, call{method: method, route: route, path: fill(route, args...), id: lastOf(args), body: body}, &out)
	return out, err
}

// exec sends body (nil: none) with method to route, ignoring the answer's body.
func (c *Client) exec(ctx context.Context, method, route string, body any, args ...string) error {
	_, err := c.do(ctx, call{method: method, route: route, path: fill(route, args...), id: lastOf(args), body: body}, nil)
	return err
}

// lastOf returns the last of a route's parameters: the id of the resource
// a single resource's route addresses ("" for none).
func lastOf(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[len(args)-1]
}
