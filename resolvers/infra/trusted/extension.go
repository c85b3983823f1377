package trusted

import (
	"context"
	"fmt"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/okrgate/okrgate/upstream"
)

// Codes of the errors Extension answers with (extensions.code), from the
// error table (upstream.Codes).
var (
	// CodeNotTrusted: the server runs only trusted documents and this one
	// is not registered (Apollo's router calls it
	// PERSISTED_QUERY_NOT_IN_LIST).
	CodeNotTrusted = upstream.CodeDocumentNotTrusted.GraphQL()
	// CodeUnknownDocument: a request named a document by documentId, with
	// no text, and no trusted document has that id.
	CodeUnknownDocument = upstream.CodeUnknownDocument.GraphQL()
)

// Extension is the gqlgen extension of a registry. Use it before
// extension.AutomaticPersistedQuery, whose parameter mutator must see the
// text this one fills in.
//
//   - A request that names a registered document and sends no text (an
//     automatic persisted query's extensions.persistedQuery.sha256Hash, or
//     a documentId) runs that document, whichever mode.
//   - With Only, a document that is not registered (compared in canonical
//     form, Canonical) is refused with CodeNotTrusted before it executes,
//     unless Escape reports that the caller may run any document (the
//     playground's users, administrators), or it only introspects (__schema,
//     __type, __typename: introspection has a switch of its own). Automatic
//     persisted queries keep working: their text is checked like any.
type Extension struct {
	// Registry holds the trusted documents; nil holds none (every id is
	// unknown).
	Registry *Registry
	Only     bool
	// Escape, when not nil, reports whether the caller of ctx may run
	// documents that are not registered.
	Escape func(ctx context.Context) bool
}

var (
	_ graphql.HandlerExtension          = Extension{}
	_ graphql.OperationParameterMutator = Extension{}
	_ graphql.OperationContextMutator   = Extension{}
)

// ExtensionName implements graphql.HandlerExtension.
func (Extension) ExtensionName() string { return "TrustedDocuments" }

// Validate implements graphql.HandlerExtension.
func (e Extension) Validate(graphql.ExecutableSchema) error {
	if e.Only && e.Registry == nil {
		return fmt.Errorf("trusted documents only: no registry")
	}
	return nil
}

// MutateOperationParameters resolves a document sent by id. Without text,
// a registered id gets its document's text, and an unknown documentId is
// refused with CodeUnknownDocument (an unknown APQ hash is left to
// automatic persisted queries: their cache, or PersistedQueryNotFound,
// which makes the client send the text). With text and the hash of a
// registered document — Apollo Client's persisted query link over a
// websocket sends both, the text as written and the hash of the manifest's
// form — the text must be that document in canonical form; it then runs
// as sent, and the hash, which is not the text's, is dropped so that
// automatic persisted queries do not refuse the pair.
func (e Extension) MutateOperationParameters(_ context.Context, p *graphql.RawParams) *gqlerror.Error {
	id, fromAPQ := documentID(p.Extensions)
	if id == "" {
		return nil
	}
	d, ok := e.Registry.Lookup(id)
	switch {
	case !ok && p.Query == "" && !fromAPQ:
		err := gqlerror.Errorf("unknown document: no trusted document has the id %q; send the id of a registered document, or its text", id)
		err.Extensions = map[string]any{"code": CodeUnknownDocument}
		return err
	case !ok:
		return nil // automatic persisted queries check a hash and its text
	case p.Query == "":
		p.Query = d.Body
	case !d.Is(p.Query):
		err := gqlerror.Errorf("the document sent is not the trusted document %s: send its id alone, or its text", id)
		err.Extensions = map[string]any{"code": CodeNotTrusted}
		return err
	}
	if fromAPQ {
		// The id may not be the text's hash (a manifest's own id, or the
		// hash of the manifest's form): the document is resolved,
		// automatic persisted queries have nothing to check or cache.
		ext := make(map[string]any, len(p.Extensions))
		for k, v := range p.Extensions {
			if k != "persistedQuery" {
				ext[k] = v
			}
		}
		p.Extensions = ext
	}
	return nil
}

// documentID is the id a request names: extensions.persistedQuery's
// sha256Hash (fromAPQ), or extensions.documentId.
func documentID(ext map[string]any) (id string, fromAPQ bool) {
	if pq, ok := ext["persistedQuery"].(map[string]any); ok {
		if h, ok := pq["sha256Hash"].(string); ok {
			return h, true
		}
	}
	if id, ok := ext["documentId"].(string); ok {
		return id, false
	}
	return "", false
}

// MutateOperationContext refuses, with Only, a document that is not
// registered.
func (e Extension) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if !e.Only || oc.Doc == nil {
		return nil
	}
	if _, ok := e.Registry.Match(oc.Doc); ok {
		return nil
	}
	if oc.Operation != nil && introspectionOnly(oc.Operation.SelectionSet, oc.Doc, 0) {
		return nil
	}
	if e.Escape != nil && e.Escape(ctx) {
		return nil
	}
	err := gqlerror.Errorf("this server runs only trusted documents, and this one is not registered: send a registered document, or its id in extensions.persistedQuery.sha256Hash")
	err.Extensions = map[string]any{"code": CodeNotTrusted}
	return err
}

// introspectionOnly reports whether a selection set selects only
// introspection fields (through fragments too, to a bounded depth).
func introspectionOnly(set ast.SelectionSet, doc *ast.QueryDocument, depth int) bool {
	if depth > 10 || len(set) == 0 {
		return false
	}
	for _, s := range set {
		switch s := s.(type) {
		case *ast.Field:
			if !strings.HasPrefix(s.Name, "__") {
				return false
			}
		case *ast.InlineFragment:
			if !introspectionOnly(s.SelectionSet, doc, depth+1) {
				return false
			}
		case *ast.FragmentSpread:
			f := doc.Fragments.ForName(s.Name)
			if f == nil || !introspectionOnly(f.SelectionSet, doc, depth+1) {
				return false
			}
		}
	}
	return true
}
