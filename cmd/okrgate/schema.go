package main

import (
	"context"
	"io"

	"github.com/okrgate/okrgate/resolvers"
)

// schemaCmd prints the GraphQL schema the server serves, in SDL: what
// introspection answers, for code generators and linters that read a file.
func schemaCmd(_ context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("schema", "okrgate schema", "Prints the GraphQL schema that serve answers, in SDL, with every description.")
	if err := fs.parse(args, getenv, stdout, stderr); err != nil {
		return err
	}
	return resolvers.WriteSchema(stdout)
}
