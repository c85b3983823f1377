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
	// canonical is Canonical of Body.
	canonical string
}

// Registry is a set of trusted documents. It is read-only once loaded and
// safe for concurrent use.
type Registry struct {
	docs      []*Document
	byID      map[string]*Document // ids and hashes
	canonical map[string]*Document // by Canonical
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
	d := &Document{ID: id, Hash: hex.EncodeToString(sum[:]), Body: body, Source: source, canonical: Canonical(doc)}
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
	r.canonical[d.canonical] = d
	r.docs = append(r.docs, d)
	return nil
}

// Lookup returns the document registered under id: a manifest's id or a
// SHA-256 in hex, with or without a "sha256:" prefix. A nil Registry has
// none.
func (r *Registry) Lookup(id string) (*Document, bool) {
	if r == nil {
		return nil, false
	}
	d, ok := r.byID[strings.TrimPrefix(id, "sha256:")]
	if !ok {
		d, ok = r.byID[id]
	}
	return d, ok
}

// Is reports whether text is d in canonical form. A text much longer than
// d's (more than 8 times, plus 4 KiB of spacing and comments) is not
// parsed: it is not d.
func (d *Document) Is(text string) bool {
	if text == d.Body {
		return true
	}
	if len(text) > 8*len(d.Body)+4096 {
		return false
	}
	doc, err := parser.ParseQuery(&ast.Source{Input: text})
	return err == nil && Canonical(doc) == d.canonical
}

// Match returns the registered document that doc is, in canonical form.
func (r *Registry) Match(doc *ast.QueryDocument) (*Document, bool) {
	if r == nil {
		return nil, false
	}
	d, ok := r.canonical[Canonical(doc)]
	return d, ok
}

// Documents are the registered documents, in the order they were loaded.
func (r *Registry) Documents() []*Document { return slices.Clone(r.docs) }
