package graphqlhttp

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/okrgate/okrgate/upstream"
)

// @defer is delivered incrementally only to a client that asks for it:
// a query over POST or GET whose Accept names multipart/mixed (the
// incremental delivery format of the GraphQL over HTTP RFC
// "IncrementalDelivery", as Apollo Client and graphql-http's clients read
// it). The first part holds everything not deferred with "hasNext": true;
// each later part is {"incremental": [{"data", "path", "label"}, ...],
// "hasNext"}; the last says "hasNext": false and closes the body.
//
// Any other request (Accept without multipart/mixed, a mutation, a
// websocket or an event stream) is answered as if no fragment were deferred:
// the @defer directives are dropped before execution, so the answer is the
// one JSON a client that cannot read parts expects. The GraphQL over HTTP
// specification leaves the case open; the @defer RFC lets a server deliver
// deferred data at once, and that loses nothing, where refusing (406) would
// break clients that do not know the directive is in a shared fragment.

// multipartBoundary separates the parts of an incremental answer. "-" is
// what gqlgen and the RFC's examples use; JSON cannot hold a line "---".
const multipartBoundary = "-"

// maxIncrementalBatch bounds the deferred payloads written in one part:
// the payloads that are ready when a part is written go in it together.
const maxIncrementalBatch = 1000

// acceptsMultipart reports whether an Accept header names multipart/mixed.
func acceptsMultipart(accept string) bool {
	for part := range strings.SplitSeq(accept, ",") {
		if mt, _, err := mime.ParseMediaType(strings.TrimSpace(part)); err == nil && mt == "multipart/mixed" {
			return true
		}
	}
	return false
}

// deferOnlyIncremental is an operation interceptor: it drops the @defer
// directives of an operation that will not be delivered in parts (see
// above), so that its answer is one complete JSON.
func deferOnlyIncremental(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	oc := graphql.GetOperationContext(ctx)
	if oc == nil || oc.Operation == nil || oc.Doc == nil {
		return next(ctx)
	}
	if oc.Operation.Operation == ast.Query && acceptsMultipart(oc.Headers.Get("Accept")) {
		return next(ctx)
	}
	withoutDefer(oc)
	return next(ctx)
}

// withoutDefer replaces the operation and fragments of oc that use @defer
// by copies without it. The document itself is shared by the query cache
// and stays as it is.
func withoutDefer(oc *graphql.OperationContext) {
	op, changed := stripDefer(oc.Operation.SelectionSet)
	var frags ast.FragmentDefinitionList
	for i, f := range oc.Doc.Fragments {
		sel, ch := stripDefer(f.SelectionSet)
		if !ch {
			continue
		}
		if frags == nil {
			frags = append(ast.FragmentDefinitionList(nil), oc.Doc.Fragments...)
		}
		c := *f
		c.SelectionSet = sel
		frags[i] = &c
	}
	if frags != nil {
		doc := *oc.Doc
		doc.Fragments = frags
		oc.Doc = &doc
	}
	if changed {
		o := *oc.Operation
		o.SelectionSet = op
		oc.Operation = &o
	}
}

// stripDefer returns set without @defer directives, copying only what
// changes, and whether anything did.
func stripDefer(set ast.SelectionSet) (ast.SelectionSet, bool) {
	var out ast.SelectionSet
	for i, sel := range set {
		n := sel
		switch s := sel.(type) {
		case *ast.Field:
			if ss, ch := stripDefer(s.SelectionSet); ch {
				c := *s
				c.SelectionSet = ss
				n = &c
			}
		case *ast.InlineFragment:
			ss, ch := stripDefer(s.SelectionSet)
			dirs, dch := dropDirective(s.Directives, "defer")
			if ch || dch {
				c := *s
				c.SelectionSet, c.Directives = ss, dirs
				n = &c
			}
		case *ast.FragmentSpread:
			if dirs, dch := dropDirective(s.Directives, "defer"); dch {
				c := *s
				c.Directives = dirs
				n = &c
			}
		}
		if n != sel && out == nil {
			out = append(make(ast.SelectionSet, 0, len(set)), set[:i]...)
		}
		if out != nil {
			out = append(out, n)
		}
	}
	if out == nil {
		return set, false
	}
	return out, true
}

// dropDirective returns dirs without the directives named name.
func dropDirective(dirs ast.DirectiveList, name string) (ast.DirectiveList, bool) {
	if dirs.ForName(name) == nil {
		return dirs, false
	}
	var out ast.DirectiveList
	for _, d := range dirs {
		if d.Name != name {
			out = append(out, d)
		}
	}
	return out, true
}

// writeIncremental writes an answer in parts: first, whose hasNext is
// true, then the payloads responses returns until one says hasNext false
// (or none is left). Payloads ready at the same time share a part.
func writeIncremental(ctx context.Context, w http.ResponseWriter, first *graphql.Response, responses graphql.ResponseHandler) {
	flusher, _ := w.(http.Flusher)
	h := w.Header()
	h.Set("Content-Type", fmt.Sprintf(`multipart/mixed; boundary="%s"; deferSpec=20220824`, multipartBoundary))
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	writePart(w, first, false)
	if flusher != nil {
		flusher.Flush()
	}
	// The payloads are produced by the executor as the deferred fields
	// resolve; a goroutine hands them over so that those ready when a
	// part is written go out together.
	ready := make(chan *graphql.Response, maxIncrementalBatch)
	go func() {
		defer close(ready)
		for {
			resp := responses(ctx)
			if resp == nil {
				return
			}
			ready <- resp
			if resp.HasNext == nil || !*resp.HasNext {
				return
			}
		}
	}()
	for resp := range ready {
		batch := []*graphql.Response{resp}
	drain:
		for len(batch) < maxIncrementalBatch {
			select {
			case r, ok := <-ready:
				if !ok {
					break drain
				}
				batch = append(batch, r)
			default:
				break drain
			}
		}
		last := batch[len(batch)-1]
		hasNext := last.HasNext != nil && *last.HasNext
		writeIncrementalPart(w, batch, hasNext)
		if flusher != nil {
			flusher.Flush()
		}
		if !hasNext {
			for range ready { // the producer has stopped; let it close
			}
			return
		}
	}
	// The stream ended without a last payload (a cancelled request):
	// close the body.
	fmt.Fprintf(w, "--%s--\r\n", multipartBoundary)
}

// writePart writes one part holding resp as JSON, and the boundary after
// it (the closing one when last).
func writePart(w http.ResponseWriter, resp any, last bool) {
	b, err := json.Marshal(resp)
	if err != nil {
		b = []byte(`{"errors":[{"message":"internal error","extensions":{"code":"` + upstream.CodeInternal.GraphQL() + `"}}],"hasNext":false}`)
		last = true
	}
	fmt.Fprintf(w, "--%s\r\nContent-Type: application/json; charset=utf-8\r\n\r\n", multipartBoundary)
	_, _ = w.Write(b)
	if last {
		fmt.Fprintf(w, "\r\n--%s--\r\n", multipartBoundary)
	} else {
		_, _ = w.Write([]byte("\r\n"))
	}
}

// incrementalPayload is one deferred fragment's answer in a later part.
type incrementalPayload struct {
	Data       json.RawMessage `json:"data"`
	Path       ast.Path        `json:"path"`
	Label      string          `json:"label,omitempty"`
	Errors     any             `json:"errors,omitempty"`
	Extensions map[string]any  `json:"extensions,omitempty"`
}

// writeIncrementalPart writes a later part holding the payloads of batch.
func writeIncrementalPart(w http.ResponseWriter, batch []*graphql.Response, hasNext bool) {
	part := struct {
		Incremental []incrementalPayload `json:"incremental"`
		HasNext     bool                 `json:"hasNext"`
	}{Incremental: make([]incrementalPayload, 0, len(batch)), HasNext: hasNext}
	for _, r := range batch {
		p := incrementalPayload{Data: r.Data, Path: r.Path, Label: r.Label, Extensions: r.Extensions}
		if len(p.Data) == 0 {
			p.Data = json.RawMessage("null")
		}
		if p.Path == nil {
			p.Path = ast.Path{}
		}
		if len(r.Errors) > 0 {
			p.Errors = r.Errors
		}
		part.Incremental = append(part.Incremental, p)
	}
	writePart(w, part, !hasNext)
}
