package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/okrgate/okrgate/resolvers"
	"github.com/okrgate/okrgate/resolvers/infra/trusted"
	"github.com/okrgate/okrgate/upstream"
)

// trustedFlags are serve's flags of trusted documents (docs/graphql-federation.md,
// "Trusted documents").
type trustedFlags struct {
	paths  *string
	only   *bool
	escape *string
}

func addTrustedFlags(fs *flag.FlagSet) *trustedFlags {
	return &trustedFlags{
		paths:  fs.String("trusted-documents", "", "comma-separated `files or directories` of trusted GraphQL documents: .graphql files, graphql-codegen's persisted-documents.json, or an Apollo persisted query manifest; loaded and validated at start. Clients may then send a document's id (extensions.persistedQuery.sha256Hash or documentId) instead of its text"),
		only:   fs.Bool("trusted-documents-only", false, "run only the trusted documents on /graphql; refuse others with DOCUMENT_NOT_TRUSTED (introspection is governed by --introspection)"),
		escape: fs.String("trusted-documents-escape", "admins", "with --trusted-documents-only, who may still run any document (the playground): `admins` (callers with the admin role) or none"),
	}
}

// extension loads the registry; nil when no documents are configured.
func (t *trustedFlags) extension() (*trusted.Extension, error) {
	if *t.paths == "" {
		if *t.only {
			return nil, errors.New("--trusted-documents-only needs --trusted-documents")
		}
		return nil, nil
	}
	reg, err := loadTrusted(*t.paths)
	if err != nil {
		return nil, err
	}
	ext := &trusted.Extension{Registry: reg, Only: *t.only}
	switch *t.escape {
	case "admins":
		ext.Escape = isAdmin
	case "none":
	default:
		return nil, fmt.Errorf("--trusted-documents-escape: %q is neither admins nor none", *t.escape)
	}
	return ext, nil
}

// isAdmin reports whether the caller of ctx has the admin role.
func isAdmin(ctx context.Context) bool {
	c, ok := upstream.CallerFrom(ctx)
	return ok && slices.Contains(c.Roles, upstream.RoleAdmin)
}

func loadTrusted(paths string) (*trusted.Registry, error) {
	schema, err := resolvers.ServedSchema()
	if err != nil {
		return nil, err
	}
	return trusted.Load(schema, strings.Split(paths, ",")...)
}

// documentsCmd lists the trusted documents of files, validated against the
// served schema: what serve --trusted-documents would load.
func documentsCmd(_ context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("documents", "okrgate documents --trusted-documents PATHS",
		"Loads trusted documents as serve --trusted-documents does, validates each against the served schema, and lists them: id, SHA-256 of the text, operations, source. Exits non-zero when one is invalid.")
	paths := fs.String("trusted-documents", "", "comma-separated `files or directories` of trusted documents (required)")
	if err := fs.parse(args, getenv, stdout, stderr); err != nil {
		return err
	}
	if *paths == "" {
		return errors.New("--trusted-documents is required")
	}
	reg, err := loadTrusted(*paths)
	if err != nil {
		return err
	}
	docs := reg.Documents()
	for _, d := range docs {
		ops := make([]string, len(d.Operations))
		for i, op := range d.Operations {
			ops[i] = cmp.Or(op, "(anonymous)")
		}
		fmt.Fprintf(stdout, "%s\tsha256:%s\t%s\t%s\n", d.ID, d.Hash, strings.Join(ops, ","), d.Source)
	}
	fmt.Fprintf(stderr, "%d trusted documents, all valid against the schema\n", len(docs))
	return nil
}
