package resolvers

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/sqlstore"
)

// TestLoaderWaitEndsAtTheDeadline: a loader that does not know how many keys
// it will get waits for more, but never past the request's deadline. With a
// one-hour batch wait and a 100 ms deadline the load returns at the
// deadline instead of blocking for the hour: with the context's error, or
// with the user when the batch's read beat the deadline by a hair.
func TestLoaderWaitEndsAtTheDeadline(t *testing.T) {
	bg := context.Background()
	st, err := sqlstore.Open(bg, filepath.Join(t.TempDir(), "okr.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	boot, err := st.Bootstrap(bg, sqlstore.BootstrapInput{AccountName: "Acme", Email: "ann@acme.test"})
	if err != nil {
		t.Fatal(err)
	}
	caller := upstream.Caller{AccountID: boot.AccountID, UserID: boot.UserID, Roles: []string{"admin"}}

	// Without a deadline the same loader answers once its wait is over.
	ctx := upstream.NewContext(bg, caller)
	l := NewLoaders(ctx, st, time.Millisecond)
	u, err := pick(WithLoaders(ctx, l), "userByID", userByID, nil).Load(ctx, boot.UserID)()
	if err != nil || u == nil || u.ID != boot.UserID {
		t.Fatalf("load without deadline: %v, %v", u, err)
	}

	ctx, cancel := context.WithTimeout(upstream.NewContext(bg, caller), 100*time.Millisecond)
	defer cancel()
	l = NewLoaders(ctx, st, time.Hour)
	done := make(chan error, 1)
	go func() {
		_, err := pick(WithLoaders(ctx, l), "userByID", userByID, nil).Load(ctx, boot.UserID)()
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("load at the deadline: %v, want context.DeadlineExceeded", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the loader still waits a minute after the request's deadline")
	}
}
