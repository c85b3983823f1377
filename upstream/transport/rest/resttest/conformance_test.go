package resttest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// recorder keeps the errors a Conformance reports instead of failing the
// test that runs it.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestConformanceReportsBodies: answers that break the document are
// reported, through the schemas compiled once (a JSON body, a problem
// document behind a $ref) and through kin-openapi (a media type the
// document does not give), and answers that keep it are not.
func TestConformanceReportsBodies(t *testing.T) {
	answers := map[string]struct {
		status int
		ctype  string
		body   string
	}{
		"/api/v1/accounts/good-problem": {404, "application/problem+json", `{"type":"urn:okrgate:problem:not_found","title":"Not Found","status":404,"code":"not_found","detail":"no such item","requestId":"r1"}`},
		"/api/v1/accounts/bad-problem":  {404, "application/problem+json", `{"type":"urn:okrgate:problem:not_found","title":"Not Found","status":"404","code":"not_found","detail":"no such item","requestId":"r1"}`},
		"/api/v1/accounts/not-json":     {404, "application/problem+json", `{"type":`},
		"/api/v1/accounts/wrong-type":   {200, "text/plain", `hello`},
		"/api/v1/accounts/bad-account":  {200, "application/json", `{"id":7}`},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := answers[r.URL.Path]
		w.Header().Set("Content-Type", a.ctype)
		w.WriteHeader(a.status)
		_, _ = w.Write([]byte(a.body))
	}))
	defer srv.Close()
	for path, want := range map[string]string{
		"/api/v1/accounts/good-problem": "",
		"/api/v1/accounts/bad-problem":  "does not match its schema",
		"/api/v1/accounts/not-json":     "not JSON",
		"/api/v1/accounts/wrong-type":   "does not conform",
		"/api/v1/accounts/bad-account":  "does not match its schema",
	} {
		rec := &recorder{TB: t}
		c := New(rec, nil)
		res, err := (&http.Client{Transport: c}).Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		got := strings.Join(rec.errs, "\n")
		switch {
		case want == "" && got != "":
			t.Errorf("%s: reported %s", path, got)
		case want != "" && !strings.Contains(got, want):
			t.Errorf("%s: reported %q, want an error containing %q", path, got, want)
		}
		if c.Checked() != 1 {
			t.Errorf("%s: %d responses checked, want 1", path, c.Checked())
		}
	}
}
