// Command openapigen writes the OpenAPI document of the REST facade,
// generated from its route table and Go types, to upstream/transport/rest/openapi.json
// (or to the path given as the only argument). Run it from the repository
// root after changing a route or a resource type:
//
//	go run ./upstream/transport/rest/openapigen
package main

import (
	"fmt"
	"os"

	"github.com/okrgate/okrgate/upstream/transport/rest"
)

func main() {
	out := "upstream/transport/rest/openapi.json"
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	doc, err := rest.GenerateOpenAPI()
	if err != nil {
		fmt.Fprintln(os.Stderr, "openapigen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(out, doc, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "openapigen:", err)
		os.Exit(1)
	}
}
