package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/accountpull"
	"github.com/okrgate/okrgate/upstream/backend/client"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
)

// pullFlags are the flags of okrgate import --from.
type pullFlags struct {
	url, token, account, spool string
	maxWait                    time.Duration
	pageSize                   int
}

func (p *pullFlags) register(fs *cmdFlags) {
	fs.StringVar(&p.url, "from", "", "read the account through the REST API of the server at this `URL` instead of a file")
	fs.StringVar(&p.token, "token", "", "with --from: an API `token` of an admin of the account on that server")
	fs.StringVar(&p.account, "account", "", "with --from: the account's `id` on that server")
	fs.StringVar(&p.spool, "spool", "", "with --from: the `directory` keeping the pages read so far, reused by a rerun (default: one per server and account in the user's cache directory)")
	fs.DurationVar(&p.maxWait, "max-retry-after", 5*time.Minute, "with --from: the longest Retry-After of the server to wait for; a longer one stops the pull (run it again to resume)")
	fs.IntVar(&p.pageSize, "page-size", 500, "with --from: documents read per request (at most 1000)")
}

// pullCmd reads an account through the REST API into a file in its spool
// and imports that file: the same import as okrgate import --in.
func pullCmd(ctx context.Context, pf pullFlags, db string, create, replace bool, stdout, stderr io.Writer) error {
	spool := pf.spool
	if spool == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return fmt.Errorf("no --spool and no cache directory: %w", err)
		}
		spool = filepath.Join(cache, "okrgate", accountpull.SpoolKey(pf.url, pf.account))
	}
	c, err := client.New(pf.url, client.Options{
		Timeout: time.Minute, Retries: 5, RetryBackoff: 200 * time.Millisecond, MaxRetryAfter: pf.maxWait,
		// A pull waits out a busy or restarting server; it does not give
		// up after a few failures.
		BreakerFailures: math.MaxUint32, MaxConcurrent: 1,
	})
	if err != nil {
		return err
	}
	caps, err := c.Discover(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", pf.url, err)
	}
	ctx = upstream.NewContext(ctx, upstream.Caller{AccountID: pf.account, Token: pf.token})
	file := filepath.Join(spool, "account.jsonl")
	start := time.Now()
	if err := os.MkdirAll(spool, 0o700); err != nil {
		return err
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer f.Close()
	rep, err := accountpull.Pull(ctx, c, pf.account, accountpull.Options{
		Spool: spool, SourceURL: pf.url, PageSize: pf.pageSize, Capabilities: caps,
		Progress: func(resource string, n int) {
			fmt.Fprintf(stderr, "read %d %s (%s)\n", n, resource, time.Since(start).Round(time.Millisecond))
		},
	}, f)
	if err != nil {
		return fmt.Errorf("%w; nothing was imported (run the same command again to resume: %d pages are kept in %s)", err, rep.Reused+rep.Fetched, spool)
	}
	fmt.Fprintf(stdout, "read account %s from %s: %d pages, %d of them kept from an earlier run, in %s\n",
		pf.account, pf.url, rep.Reused+rep.Fetched, rep.Reused, time.Since(start).Round(time.Millisecond))
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := importFile(ctx, f, db, create, sqlstore.ImportOptions{Replace: replace, KeepRecomputed: true}, stdout, stderr); err != nil {
		return err
	}
	f.Close()
	return accountpull.Clear(spool)
}
