package limit

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/lexer"
)

// peekLimit is the largest GraphQL body read ahead to classify it; a larger
// one counts as a write (the GraphQL handler refuses it anyway).
const peekLimit = 1 << 20

// classify reports whether r is a write, and returns r with its body intact.
// GET, HEAD and OPTIONS are reads, and so is a POST to /graphql whose
// document has no mutation operation; every other request is a write.
func classify(r *http.Request) (bool, *http.Request) {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false, r
	}
	if r.Method != http.MethodPost || r.URL.Path != graphqlPath || r.Body == nil || r.ContentLength > peekLimit {
		return true, r
	}
	head, err := io.ReadAll(io.LimitReader(r.Body, peekLimit+1))
	r2 := r.WithContext(r.Context()) // a shallow copy whose Body may change
	r2.Body = readCloser{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
	if err != nil || len(head) > peekLimit {
		return true, r2
	}
	return hasMutation(head), r2
}

type readCloser struct {
	io.Reader
	io.Closer
}

// hasMutation reports whether a GraphQL request body (JSON with a "query")
// holds a mutation operation. A body it cannot read counts as one: erring
// towards the write bound only sheds sooner.
func hasMutation(body []byte) bool {
	if !bytes.Contains(body, []byte("mutation")) {
		return false // the common case, decided without decoding
	}
	var req struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return true
	}
	// The keyword only counts at the top level of the document, outside
	// selection sets, strings and comments: the lexer tells those apart.
	lx := lexer.New(&ast.Source{Input: req.Query})
	depth := 0
	for {
		tok, err := lx.ReadToken()
		if err != nil {
			return true
		}
		switch tok.Kind {
		case lexer.EOF:
			return false
		case lexer.BraceL:
			depth++
		case lexer.BraceR:
			depth--
		case lexer.Name:
			if depth == 0 && tok.Value == "mutation" {
				return true
			}
		}
	}
}
