package resolvers_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream/backend/sqlstore/sqlstoretest"

	"github.com/okrgate/okrgate/resolvers/transport/graphqlhttp"
	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/infra/observe"
)

// lockedBuffer is a goroutine-safe log sink.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// stalledCheckIn holds a check-in until its client has gone away, then runs
// it on the real store, which fails on the canceled context.
type stalledCheckIn struct {
	*sqlstore.Store
	entered chan struct{}
}

func (s stalledCheckIn) CheckIn(ctx context.Context, id string, in upstream.CheckInInput) (upstream.CheckIn, error) {
	close(s.entered)
	<-ctx.Done()
	return s.Store.CheckIn(ctx, id, in)
}

// TestClientClosedIsNotAnInternalError: a GraphQL mutation whose client
// disconnects mid-write is logged on its one access line as status 499 at
// INFO, with the cancellation as its cause, not as an internal error.
func TestClientClosedIsNotAnInternalError(t *testing.T) {
	bg := context.Background()
	st, err := sqlstore.Open(bg, sqlstoretest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	boot, err := st.Bootstrap(bg, sqlstore.BootstrapInput{AccountName: "Acme", Email: "ann@acme.test"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := st.Authenticate(bg, boot.Token)
	if err != nil {
		t.Fatal(err)
	}
	ctx := upstream.NewContext(bg, c)
	ss, err := st.CreateSession(ctx, upstream.SessionInput{Title: "Q", Start: "2026-01-01", End: "2026-12-31"})
	if err != nil {
		t.Fatal(err)
	}
	g, err := st.CreateGoal(ctx, upstream.GoalInput{Name: "G", SessionID: ss.ID})
	if err != nil {
		t.Fatal(err)
	}
	target := 10.0
	m, err := st.CreateMetric(ctx, upstream.MetricInput{Name: "M", GoalID: g.ID, Target: &target})
	if err != nil {
		t.Fatal(err)
	}

	logs := &lockedBuffer{}
	entered := make(chan struct{})
	api := stalledCheckIn{Store: st, entered: entered}
	log := slog.New(slog.NewJSONHandler(logs, nil))
	srv := httptest.NewServer(observe.Stack(observe.Config{Logger: log})(graphqlhttp.NewHandler(graphqlhttp.Config{API: api, Auth: st, Logger: log})))
	defer srv.Close()

	rctx, cancel := context.WithCancel(bg)
	body := `{"query":"mutation { checkIn(metricId: \"` + m.ID + `\", input: {actual: 5}) { checkIn { id } } }"}`
	req, err := http.NewRequestWithContext(rctx, "POST", srv.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+boot.Token)
	errc := make(chan error, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			res.Body.Close()
		}
		errc <- err
	}()
	<-entered
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("the canceled request got an answer")
	}
	deadline := time.Now().Add(20 * time.Second) // bounds a failure; asserts no timing
	for !strings.Contains(logs.String(), `"msg":"request"`) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	out := logs.String()
	if n := strings.Count(strings.TrimSpace(out), "\n") + 1; n != 1 || !strings.Contains(out, `"status":499`) || !strings.Contains(out, `"level":"INFO"`) || !strings.Contains(out, "canceled") {
		t.Errorf("want one INFO access line with status 499 and the cause:\n%s", out)
	}
	if strings.Contains(out, "internal error") {
		t.Errorf("a client that went away is logged as an internal error:\n%s", out)
	}
}
