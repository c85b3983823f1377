// Package trusted holds a server's trusted GraphQL documents (persisted
// documents): the operations its own clients shipped, registered ahead of
// time, so that a client may send a document's id instead of its text, and
// so that the server may refuse every document that is not registered
// (Extension).
//
// A registry is loaded from files at start: .graphql or .gql files (one
// document each, by itself or in a directory), a JSON object mapping ids to
// documents (graphql-codegen's client preset persisted-documents.json,
// Relay's persisted queries), or an Apollo persisted query manifest
// ({"format": "apollo-persisted-query-manifest", "operations": [...]}).
// Every document is validated against the schema when it is loaded, so a
// registry that no longer matches the schema stops the server at start,
// not a client at run time.
package trusted

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
)

// Document is one registered document.
type Document struct {
	// ID is the id its source gave it: a manifest's key or id, or the
	// SHA-256 of a .graphql file's text, in hex.
	ID string
	// Hash is the SHA-256 of Body in hex, the hash an automatic persisted
	// query of the same text carries.
	Hash string
	// Operations are its operations' names ("" for an anonymous one).
	Operations []string
	Body       string
	// Source is the file it was read from.
	Source string
}

// Registry is a set of trusted documents. It is read-only once loaded and
// safe for concurrent use.
type Registry struct {
	docs      []*Document
	byID      map[string]*Document // ids and hashes
	canonical map[string]*Document // the documents printed by formatter
}

// Load reads the documents of paths (files or directories) and validates
// each against schema.
func Load(schema *ast.Schema, paths ...string) (*Registry, error) {
	r := &Registry{byID: map[string]*Document{}, canonical: map[string]*Document{}}
	for _, p := range paths {
		if err := r.loadPath(schema, p); err != nil {
			return nil, err
		}
	}
	if len(r.docs) == 0 {
		return nil, fmt.Errorf("trusted documents: no document in %s", strings.Join(paths, ", "))
	}
	return r, nil
}

func (r *Registry) loadPath(schema *ast.Schema, path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("trusted documents: %w", err)
	}
	if !info.IsDir() {
		return r.loadFile(schema, path)
	}
	return filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("trusted documents: %w", err)
		}
		if d.IsDir() || !isDocumentFile(p) {
			return nil
		}
		return r.loadFile(schema, p)
	})
}

func isDocumentFile(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".graphql", ".gql", ".json":
		return true
	}
	return false
}

func (r *Registry) loadFile(schema *ast.Schema, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("trusted documents: %w", err)
	}
	if strings.EqualFold(filepath.Ext(path), ".json") {
		return r.loadManifest(schema, path, b)
	}
	return r.add(schema, path, "", string(b))
}

// loadManifest reads an Apollo persisted query manifest, or a JSON object
// of id → document.
func (r *Registry) loadManifest(schema *ast.Schema, path string, b []byte) error {
	var apollo struct {
		Format     string `json:"format"`
		Operations []struct {
			ID   string `json:"id"`
			Body string `json:"body"`
		} `json:"operations"`
	}
	if err := json.Unmarshal(b, &apollo); err == nil && apollo.Format != "" {
		if apollo.Format != "apollo-persisted-query-manifest" {
			return fmt.Errorf("trusted documents: %s: unknown manifest format %q", path, apollo.Format)
		}
		for _, op := range apollo.Operations {
			if err := r.add(schema, path, op.ID, op.Body); err != nil {
				return err
			}
		}
		return nil
	}
	var byID map[string]string
	if err := json.Unmarshal(b, &byID); err != nil {
		return fmt.Errorf("trusted documents: %s: neither an object of id → document nor an Apollo manifest: %w", path, err)
	}
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if err := r.add(schema, path, id, byID[id]); err != nil {
			return err
		}
	}
	return nil
}

// add registers body under id (its hash when id is empty).
func (r *Registry) add(schema *ast.Schema, source, id, body string) error {
	doc, perr := parser.ParseQuery(&ast.Source{Name: source, Input: body})
	if perr != nil {
		return fmt.Errorf("trusted documents: %s %s: %w", source, id, perr)
	}
	if errs := validator.ValidateWithRules(schema, doc, nil); len(errs) > 0 {
		return fmt.Errorf("trusted documents: %s %s: not valid against the schema: %w", source, id, errs)
	}
	sum := sha256.Sum256([]byte(body))
	d := &Document{ID: id, Hash: hex.EncodeToString(sum[:]), Body: body, Source: source}
	if d.ID == "" {
		d.ID = d.Hash
	}
	for _, op := range doc.Operations {
		d.Operations = append(d.Operations, op.Name)
	}
	for _, key := range []string{d.ID, d.Hash} {
		if old, ok := r.byID[key]; ok && old.Body != body {
			return fmt.Errorf("trusted documents: id %s names two documents (%s and %s)", key, old.Source, source)
		}
		r.byID[key] = d
	}
	r.canonical[Canonical(doc)] = d
	r.docs = append(r.docs, d)
	return nil
}

// Canonical prints doc in one form, whatever its source's spacing, commas,
// comments and descriptions, and without the __typename fields that
// clients add on their own (Apollo Client's cache adds one to every
// selection set): a client may send a registered document as it prints
// it, not byte for byte as it was registered. __typename reads nothing.
func Canonical(doc *ast.QueryDocument) string {
	out := &ast.QueryDocument{}
	for _, op := range doc.Operations {
		o := *op
		o.SelectionSet = withoutTypename(op.SelectionSet)
		out.Operations = append(out.Operations, &o)
	}
	for _, f := range doc.Fragments {
		c := *f
		c.SelectionSet = withoutTypename(f.SelectionSet)
		out.Fragments = append(out.Fragments, &c)
	}
	var buf bytes.Buffer
	formatter.NewFormatter(&buf, formatter.WithCompacted()).FormatQueryDocument(out)
	return buf.String()
}

// withoutTypename copies set without its plain __typename fields (no
// alias, no directives), recursively; doc's own nodes are not changed (a
// parsed document is shared through the query cache).
func withoutTypename(set ast.SelectionSet) ast.SelectionSet {
	out := make(ast.SelectionSet, 0, len(set))
	for _, s := range set {
		switch s := s.(type) {
		case *ast.Field:
			if s.Name == "__typename" && (s.Alias == "" || s.Alias == s.Name) && len(s.Directives) == 0 {
				continue
			}
			f := *s
			f.SelectionSet = withoutTypename(s.SelectionSet)
			out = append(out, &f)
		case *ast.InlineFragment:
			f := *s
			f.SelectionSet = withoutTypename(s.SelectionSet)
			out = append(out, &f)
		default:
			out = append(out, s)
		}
	}
	return out
}

// Lookup returns the document registered under id: a manifest's id or a
// SHA-256 in hex, with or without a "sha256:" prefix.
func (r *Registry) Lookup(id string) (*Document, bool) {
	d, ok := r.byID[strings.TrimPrefix(id, "sha256:")]
	if !ok {
		d, ok = r.byID[id]
	}
	return d, ok
}

// Match returns the registered document that doc is, in canonical form.
func (r *Registry) Match(doc *ast.QueryDocument) (*Document, bool) {
	d, ok := r.canonical[Canonical(doc)]
	return d, ok
}

// Documents are the registered documents, in the order they were loaded.
func (r *Registry) Documents() []*Document { return slices.Clone(r.docs) }
