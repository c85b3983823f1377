// Package accountpull reads one account through the REST API of a server —
// another okrgate, or the real platform's v1/v2 endpoints — into an account
// file (package accountfile), which okrgate import then reads like an
// exported one: one import path, whatever the account came from.
//
// The account is read resource by resource, page by page, in the order an
// import writes them: the account, users, teams, sessions, objectives, key
// results, check-ins with the key result as it was after each (in pages of
// GET /api/v2/checkins/snapshots, or where the source lacks it one read per
// check-in), tasks, tags and taggings, roles, grants, role mappings,
// dashboards, badges, KPIs, lists, announcements, pictures, webhooks. Each
// page read is written to a spool directory as a small account file of its
// own, complete or not at all (written aside and renamed), so a pull
// interrupted — the source gone, the process stopped — resumes on the next
// run from the first page it does not have. The documents are turned into rows by sqlstore.Records,
// which strips what a read adds to them.
//
// What the source does not serve (check-in history without
// GET /api/v2/checkins, grants without GET /api/v2/permissions) and what no
// server of the API gives out (API tokens, webhook signing secrets) is
// named in the Report.
package accountpull

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/okrgate/okrgate/upstream"
	"github.com/okrgate/okrgate/upstream/accountfile"
	"github.com/okrgate/okrgate/upstream/backend/client"
	"github.com/okrgate/okrgate/upstream/backend/sqlstore"
	"github.com/okrgate/okrgate/upstream/query"
)

// Source is the server an account is read from (the REST client): the
// services whose listings make up an account file, and the token check
// that finds the account a pull acts in.
type Source interface {
	upstream.AuthService
	upstream.AccountService
	upstream.UserService
	upstream.TeamService
	upstream.RoleService
	upstream.PermissionService
	upstream.SessionService
	upstream.GoalService
	upstream.MetricService
	upstream.TaskService
	upstream.TagService
	upstream.BadgeService
	upstream.DashboardService
	upstream.KPIService
	upstream.ListService
	upstream.AnnouncementService
	upstream.CommentService
	GetAvatar(ctx context.Context, accountID, id string) (upstream.Avatar, error)
	ListWebhooks(ctx context.Context) ([]upstream.Webhook, error)
}

// Options configures a pull.
type Options struct {
	// Spool is the directory of the pages read so far; a pull of the same
	// source and account reuses it. Keyed by source and account
	// (SpoolKey); a directory of another pull is refused.
	Spool string
	// SourceURL names the source in the spool (with the account, its key).
	SourceURL string
	// PageSize is how many documents one page reads (at most
	// upstream.MaxLimit); 0 means 500.
	PageSize int
	// Capabilities says which listings beyond the documented ones the
	// source serves (client.Client.Discover); nil assumes all.
	Capabilities *client.Capabilities
	// Progress, if set, is called after each page with the resource and
	// the documents of it read so far.
	Progress func(resource string, n int)
}

// Report is what a pull read and what it could not.
type Report struct {
	// Rows are the rows of each table in the file.
	Rows map[string]int
	// Reused is how many pages came from the spool of an earlier run,
	// Fetched how many were read from the source in this one.
	Reused, Fetched int
	// Missing names what the source could not provide.
	Missing []string
}

// SpoolKey is the name of the spool of a pull of account from source.
func SpoolKey(source, account string) string {
	h := sha256.Sum256([]byte(source + "\x00" + account))
	return "okrgate-pull-" + account + "-" + hex.EncodeToString(h[:6])
}

// spoolID is what a spool's key file holds: the pull's key and its page
// size (pages are numbered in it).
func spoolID(source, account string, pageSize int) string {
	return fmt.Sprintf("%s pages of %d", SpoolKey(source, account), pageSize)
}

// stage is one resource read in pages.
type stage struct {
	name string
	// page reads page n (from 0) of the resource into w, and reports how
	// many documents it read and whether it was the last page.
	page func(ctx context.Context, n int, w *accountfile.Writer) (read int, last bool, err error)
}

// puller holds one pull's state.
type puller struct {
	src     Source
	account string
	rec     sqlstore.Records
	opts    Options
	caps    *client.Capabilities
	report  Report
	// snapshots of key results by id, for check-ins whose snapshot the
	// source does not serve.
	current map[string]upstream.Metric
	// reader is the id of the token's user, once a favourite needs it.
	reader string
}

// Pull reads account from src and writes it to out as an account file.
// Pages already in opts.Spool are not read again. The spool is left in
// place; the caller removes it once the file is imported (Clear).
func Pull(ctx context.Context, src Source, account string, opts Options, out io.Writer) (Report, error) {
	if opts.PageSize <= 0 || opts.PageSize > upstream.MaxLimit {
		opts.PageSize = 500
	}
	if opts.Spool == "" {
		return Report{}, errors.New("accountpull: no spool directory")
	}
	if err := openSpool(opts.Spool, spoolID(opts.SourceURL, account, opts.PageSize)); err != nil {
		return Report{}, err
	}
	p := &puller{src: src, account: account, rec: sqlstore.Records{AccountID: account}, opts: opts,
		caps: opts.Capabilities, current: map[string]upstream.Metric{}}
	if p.caps == nil {
		p.caps = client.AllCapabilities()
	}
	p.report.Missing = []string{
		"API tokens: no server of the API gives out their hashes (mint new ones: okrgate token create)",
		"webhook signing secrets: the API never gives them out; the webhooks arrive inactive (set a new secret and activate each: PATCH /api/v1/webhooks/{id})",
	}
	stages := p.stages()
	for _, s := range stages {
		if err := p.run(ctx, s); err != nil {
			return p.report, err
		}
	}
	rows, err := p.assemble(stages, out)
	p.report.Rows = rows
	return p.report, err
}

// Clear removes a spool once its account is imported.
func Clear(spool string) error { return os.RemoveAll(spool) }

// keyFile holds the key of the pull a spool belongs to.
const keyFile = "pull"

func openSpool(dir, key string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("accountpull: spool: %w", err)
	}
	path := filepath.Join(dir, keyFile)
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return os.WriteFile(path, []byte(key+"\n"), 0o600)
	case err != nil:
		return fmt.Errorf("accountpull: spool: %w", err)
	case string(b) != key+"\n":
		return fmt.Errorf("accountpull: the spool %s holds another pull (%s), not %s", dir, string(b[:len(b)-1]), key)
	}
	return nil
}

func (p *puller) pagePath(stage string, n int) string {
	return filepath.Join(p.opts.Spool, fmt.Sprintf("%s.%05d.jsonl", stage, n))
}

// lastMark is the name of the file that says a stage read its last page.
func (p *puller) lastMark(stage string) string {
	return filepath.Join(p.opts.Spool, stage+".done")
}

// run reads the pages of s the spool does not have.
func (p *puller) run(ctx context.Context, s stage) error {
	if _, err := os.Stat(p.lastMark(s.name)); err == nil {
		for n := 0; ; n++ {
			if _, err := os.Stat(p.pagePath(s.name, n)); err != nil {
				return nil
			}
			p.report.Reused++
		}
	}
	read := 0
	for n := 0; ; n++ {
		path := p.pagePath(s.name, n)
		if _, err := os.Stat(path); err == nil {
			p.report.Reused++
			read += p.opts.PageSize
			continue
		}
		got, last, err := p.fetch(ctx, s, n, path)
		if err != nil {
			return fmt.Errorf("accountpull: %s, page %d: %w", s.name, n+1, err)
		}
		p.report.Fetched++
		read += got
		if p.opts.Progress != nil {
			p.opts.Progress(s.name, read)
		}
		if last {
			return os.WriteFile(p.lastMark(s.name), nil, 0o600)
		}
	}
}

// fetch reads page n of s into its spool file, written aside and renamed.
func (p *puller) fetch(ctx context.Context, s stage, n int, path string) (int, bool, error) {
	tmp := path + ".part"
	f, err := os.Create(tmp)
	if err != nil {
		return 0, false, err
	}
	defer os.Remove(tmp)
	w, err := accountfile.NewWriter(f, accountfile.Header{Account: p.account, Source: p.opts.SourceURL, Tables: sqlstore.RecordTables()})
	if err != nil {
		f.Close()
		return 0, false, err
	}
	got, last, err := s.page(ctx, n, w)
	if err == nil {
		err = w.Close()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, false, err
	}
	return got, last, os.Rename(tmp, path)
}

// assemble writes the account file: a header, the rows of every page of
// every stage in order, the trailer.
func (p *puller) assemble(stages []stage, out io.Writer) (map[string]int, error) {
	h := accountfile.Header{Account: p.account, Exported: upstream.FormatTime(time.Now()), Source: p.opts.SourceURL,
		Tables: sqlstore.RecordTables(), Omitted: p.report.Missing}
	w, err := accountfile.NewWriter(out, h)
	if err != nil {
		return nil, err
	}
	for _, s := range stages {
		for n := 0; ; n++ {
			f, err := os.Open(p.pagePath(s.name, n))
			if errors.Is(err, os.ErrNotExist) {
				break
			}
			if err != nil {
				return nil, err
			}
			err = copyRows(f, w)
			f.Close()
			if err != nil {
				return nil, fmt.Errorf("accountpull: the spool's %s: %w", filepath.Base(f.Name()), err)
			}
		}
	}
	return w.Counts(), w.Close()
}

func copyRows(f io.Reader, w *accountfile.Writer) error {
	r, err := accountfile.NewReader(f)
	if err != nil {
		return err
	}
	for {
		row, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		vals := make([]any, len(row.Values))
		for i, v := range row.Values {
			vals[i] = fileValue(v)
		}
		if err := w.Write(row.Table, vals); err != nil {
			return err
		}
	}
}

// fileValue is a value read from a spool page in the form a Writer writes.
func fileValue(v any) any {
	n, ok := v.(json.Number)
	if !ok {
		return v
	}
	if i, err := n.Int64(); err == nil {
		return i
	}
	f, _ := n.Float64()
	return f
}

// byID is the order of every listing: stable page after page.
var byID = []query.SortKey{{Field: "id"}}

// listed is a stage over a listing of T, each document turned into rows.
func listed[T any](name string, size int, list func(ctx context.Context, q upstream.ListQuery) (upstream.Page[T], error),
	rows func(ctx context.Context, v T, w *accountfile.Writer) error) stage {
	return stage{name: name, page: func(ctx context.Context, n int, w *accountfile.Writer) (int, bool, error) {
		q := upstream.ListQuery{Sort: byID, Skip: n * size, Limit: size}
		pg, err := list(ctx, q)
		if err != nil {
			return 0, false, err
		}
		for _, v := range pg.Items {
			if err := rows(ctx, v, w); err != nil {
				return 0, false, err
			}
		}
		return len(pg.Items), upstream.Complete(q, pg), nil
	}}
}

// write writes one row made by a Records method.
func write(w *accountfile.Writer, row accountfile.Row, err error) error {
	if err != nil {
		return err
	}
	return w.Write(row.Table, row.Values)
}

// recorded writes each item as the one row rec makes of it: the rows
// argument of listed for a kind that maps item to row one to one.
func recorded[T any](rec func(T) (accountfile.Row, error)) func(context.Context, T, *accountfile.Writer) error {
	return func(_ context.Context, v T, w *accountfile.Writer) error {
		row, err := rec(v)
		return write(w, row, err)
	}
}

// unpaged is the stage of a kind the source lists whole (one request, no
// pages): each item written as the row rec makes of it, or missing added to
// report when the source does not serve the listing.
func unpaged[T any](name string, list func(context.Context) ([]T, error), rec func(T) (accountfile.Row, error),
	report *Report, missing string) stage {
	return stage{name: name, page: func(ctx context.Context, _ int, w *accountfile.Writer) (int, bool, error) {
		vs, err := list(ctx)
		if unsupported(err) {
			report.Missing = append(report.Missing, missing)
			return 0, true, nil
		}
		if err != nil {
			return 0, false, err
		}
		for _, v := range vs {
			row, err := rec(v)
			if err := write(w, row, err); err != nil {
				return 0, false, err
			}
		}
		return len(vs), true, nil
	}}
}

// unsupported reports whether err says the source does not serve a route.
func unsupported(err error) bool {
	c := upstream.ErrorCode(err)
	return c == upstream.CodeNotFound || c == upstream.CodeOfStatus(http.StatusMethodNotAllowed) || c == upstream.CodeOfStatus(http.StatusNotImplemented)
}
