package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/okrgate/okrgate/resolvers"
	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/client"
	"github.com/okrgate/okrgate/upstream/transport/rest"
)

// TestErrorTable walks every row of the error table (upstream.Codes)
// through the three users of it, over real HTTP on 127.0.0.1: the REST
// facade renders a store error with the code as the row's status and a
// problem body with the code; the HTTP client maps that answer back to the
// code (a 5xx is the upstream failing: unavailable); GraphQL, served over
// the client as in gateway mode, answers the row's extensions.code for
// what the client returned. Then the inverse directions: the status alone
// (an answer without a problem body) and the GraphQL code alone map back
// to a code of the table with that same status or GraphQL code.
func TestErrorTable(t *testing.T) {
	rows := upstream.Codes()
	codes := make([]upstream.Code, len(rows))
	for i, row := range rows {
		codes[i] = row.Code
	}
	back := failing{codes: codes}
	srv := httptest.NewServer(rest.New(back, rest.Options{Auth: back}))
	defer srv.Close()
	c, err := client.New(srv.URL, client.Options{Retries: -1, BreakerFailures: 1000})
	if err != nil {
		t.Fatal(err)
	}
	gql := httptest.NewServer(graphqlhttp.NewHandler(graphqlhttp.Config{API: c, Auth: back}))
	defer gql.Close()
	ctx := upstream.NewContext(context.Background(), upstream.Caller{AccountID: "acc", UserID: "usr", Token: "t"})

	seen := map[upstream.Code]bool{}
	for i, row := range rows {
		if seen[row.Code] {
			t.Errorf("%s is in the table twice", row.Code)
		}
		seen[row.Code] = true
		if got, _ := row.Code.Info(); got != row {
			t.Errorf("%s: Info = %+v, want %+v", row.Code, got, row)
		}
		if row.GraphQLOnly {
			// Only the GraphQL endpoint answers it: no status of REST's,
			// and its GraphQL code leads back to it.
			if row.Status != 0 && row.Status != http.StatusServiceUnavailable {
				t.Errorf("%s: a GraphQL-only code with status %d", row.Code, row.Status)
			}
			if g := upstream.CodeOfGraphQL(row.GraphQL); g != row.Code {
				t.Errorf("CodeOfGraphQL(%q) = %s, want %s", row.GraphQL, g, row.Code)
			}
			continue
		}
		id := idOf(i)

		// REST: code → status and problem body.
		req, _ := http.NewRequest(http.MethodDelete, srv.URL+"/api/v2/integrations/tasks/"+id, nil)
		req.Header.Set("Authorization", "Bearer t")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var p rest.Problem
		_ = json.NewDecoder(resp.Body).Decode(&p)
		resp.Body.Close()
		if resp.StatusCode != row.Status {
			t.Errorf("%s: REST answered %d, want %d", row.Code, resp.StatusCode, row.Status)
		}
		if ra, want := resp.Header.Get("Retry-After"), strconv.Itoa(row.RetryAfter); row.RetryAfter > 0 && ra != want {
			t.Errorf("%s: REST answered Retry-After %q, want %q", row.Code, ra, want)
		}
		if row.Status == http.StatusServiceUnavailable && row.RetryAfter == 0 {
			t.Errorf("%s: a 503 without a Retry-After in the table", row.Code)
		}
		switch {
		case row.Status == http.StatusNotModified: // no body; X-Message
		case p.Code != string(row.Code) || p.Status != row.Status:
			t.Errorf("%s: problem body code %q status %d", row.Code, p.Code, p.Status)
		}

		// Client: status and problem body → code.
		want := row.Code
		if (row.Status >= 500 || row.Status == http.StatusTooManyRequests) && !passesThrough(row.Code) {
			want = upstream.CodeUnavailable
		}
		got := upstream.ErrorCode(c.DeleteTask(ctx, id))
		if got != want {
			t.Errorf("%s: the client answered %s, want %s", row.Code, got, want)
		}

		// GraphQL over the client: code → extensions.code.
		ext := graphQLCode(t, gql.URL, `mutation($id: ID!) { deleteTask(id: $id) }`, map[string]any{"id": id})
		if wantExt := want.GraphQL(); ext != wantExt {
			t.Errorf("%s: GraphQL answered %q, want %q", row.Code, ext, wantExt)
		}

		// The inverse directions.
		if s := upstream.CodeOfStatus(row.Status); s.Status() != row.Status {
			t.Errorf("CodeOfStatus(%d) = %s, whose status is %d", row.Status, s, s.Status())
		}
		if g := upstream.CodeOfGraphQL(row.GraphQL); g.GraphQL() != row.GraphQL {
			t.Errorf("CodeOfGraphQL(%q) = %s, whose GraphQL code is %q", row.GraphQL, g, g.GraphQL())
		}
	}
	for _, c := range []upstream.Code{upstream.CodeInvalid, upstream.CodeNotFound, upstream.CodeUnavailable} {
		if !seen[c] {
			t.Errorf("%s is missing from the table", c)
		}
	}
	if upstream.Code("no_such_code").Status() != http.StatusInternalServerError || upstream.Code("no_such_code").GraphQL() != resolvers.CodeInternal {
		t.Error("a code not in the table is not internal")
	}
}

// TestErrorTableStatusOnly: through the client, a 4xx answer without a
// problem body (a proxy in between, an older server) is the code of its
// status in the table (upstream.CodeOfStatus): the first row with it, and
// invalid_input for a 4xx the table lacks.
func TestErrorTableStatusOnly(t *testing.T) {
	statuses := []int{400, 401, 402, 403, 404, 405, 409, 412, 413, 415, 418}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i, s := range statuses {
			if strings.HasSuffix(r.URL.Path, "/"+idOf(i)) {
				w.WriteHeader(s)
				return
			}
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	c, err := client.New(srv.URL, client.Options{Retries: -1, BreakerFailures: 1000})
	if err != nil {
		t.Fatal(err)
	}
	ctx := upstream.NewContext(context.Background(), upstream.Caller{AccountID: "acc", UserID: "usr", Token: "t"})
	for i, s := range statuses {
		want := upstream.CodeOfStatus(s)
		if s == 418 && want != upstream.CodeInvalid {
			t.Errorf("CodeOfStatus(418) = %s, want invalid_input", want)
		}
		if s != 418 && want.Status() != s {
			t.Errorf("CodeOfStatus(%d) = %s (status %d)", s, want, want.Status())
		}
		if got := upstream.ErrorCode(c.DeleteTask(ctx, idOf(i))); got != want {
			t.Errorf("a bare %d: the client answered %s, want %s", s, got, want)
		}
	}
}

// graphQLCode posts query to the GraphQL endpoint at url with the bearer
// token "t" and returns the extensions.code of its first error.
func graphQLCode(t *testing.T, url, query string, vars map[string]any) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer t")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Errors []struct {
			Extensions map[string]any `json:"extensions"`
		} `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("GraphQL answer: %v", err)
	}
	if len(out.Errors) == 0 {
		return ""
	}
	code, _ := out.Errors[0].Extensions["code"].(string)
	return code
}
