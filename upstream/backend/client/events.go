package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/okrgate/okrgate/upstream"
)

// DefaultEventPoll is how often the client asks the upstream whether the
// log of an account it follows has grown (Options.EventPoll).
const DefaultEventPoll = time.Second

// followIdle is how long an account stays followed after the last read of
// its log: longer than the slowest subscription's fallback poll.
const followIdle = time.Minute

// routeEvents is the upstream's event feed (okrgate's GET /api/v2/events).
const routeEvents = "/api/v2/events"

var _ upstream.EventLog = (*Client)(nil)

// Events reads the log of the caller's account through the upstream's
// event feed, as the caller may see it: an event whose item the caller may
// not read is only its position (an Event without a type, which no
// subscription selects). The caller's account is followed from then on
// (EventsChanged).
func (c *Client) Events(ctx context.Context, after int64, limit int) ([]upstream.Event, error) {
	if limit <= 0 || limit > upstream.MaxFeedEvents {
		limit = upstream.MaxFeedEvents
	}
	caller, feed, err := c.feed(ctx, "", after, limit)
	if err != nil {
		return nil, err
	}
	out := make([]upstream.Event, len(feed.Items))
	for i, f := range feed.Items {
		out[i] = f.Event(caller.AccountID)
	}
	return out, nil
}

// Head returns the last position of the caller's account's log, and
// follows the account from then on.
func (c *Client) Head(ctx context.Context) (int64, error) {
	_, feed, err := c.feed(ctx, "", 0, 0)
	return feed.Head, err
}

// EventsChanged returns a channel closed when the log of an account the
// client follows has grown: the client polls the head of each account
// read in the last minute every Options.EventPoll, with the token of its
// last reader.
func (c *Client) EventsChanged() <-chan struct{} { return c.follow.wait() }

// feed reads a page of the event feed for the caller of ctx, or with
// token when it is set, and follows the caller's account.
func (c *Client) feed(ctx context.Context, token string, after int64, limit int) (upstream.Caller, upstream.EventFeed, error) {
	var caller upstream.Caller
	if token == "" {
		var err error
		if caller, err = upstream.MustCaller(ctx); err != nil {
			return caller, upstream.EventFeed{}, err
		}
	}
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	if after > 0 {
		q.Set("after", strconv.FormatInt(after, 10))
	}
	var feed upstream.EventFeed
	_, err := c.do(ctx, call{method: http.MethodGet, route: routeEvents, path: routeEvents, query: q, token: token}, &feed)
	if upstream.ErrorCode(err) == upstream.CodeNotFound {
		return caller, feed, upstream.Errorf(upstream.CodeUnavailable,
			"the upstream serves no event feed (GET %s): subscriptions are not served through this gateway", routeEvents)
	}
	if err != nil {
		return caller, feed, err
	}
	if token == "" {
		c.follow.note(c, caller, feed.Head)
	}
	return caller, feed, nil
}

// follower polls the heads of the accounts whose logs were read lately
// and wakes the readers when one grew. It runs only while it follows an
// account.
type follower struct {
	poll time.Duration

	mu       sync.Mutex
	changed  chan struct{}
	accounts map[string]*followed
	running  bool
}

// followed is an account the follower polls.
type followed struct {
	token string    // of the account's last reader
	head  int64     // the last head seen
	read  time.Time // when its log was last read
}

func newFollower(poll time.Duration) *follower {
	return &follower{poll: poll, changed: make(chan struct{}), accounts: map[string]*followed{}}
}

func (f *follower) wait() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.changed
}

// note records a read of caller's account's log, whose head was head.
func (f *follower) note(c *Client, caller upstream.Caller, head int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	a := f.accounts[caller.AccountID]
	if a == nil {
		a = &followed{head: head}
		f.accounts[caller.AccountID] = a
	}
	a.token, a.read = caller.Token, time.Now()
	if head > a.head {
		// Seen first by a reader: the others, waiting, must read too.
		a.head = head
		f.wakeLocked()
	}
	if !f.running {
		f.running = true
		go f.run(c)
	}
}

// run polls until no account is followed.
func (f *follower) run(c *Client) {
	t := time.NewTicker(f.poll)
	defer t.Stop()
	for range t.C {
		f.mu.Lock()
		type poll struct {
			account, token string
			head           int64
		}
		var polls []poll
		for id, a := range f.accounts {
			if time.Since(a.read) > followIdle {
				delete(f.accounts, id)
				continue
			}
			polls = append(polls, poll{id, a.token, a.head})
		}
		if len(polls) == 0 {
			f.running = false
			f.mu.Unlock()
			return
		}
		f.mu.Unlock()
		grew := false
		for _, p := range polls {
			_, feed, err := c.feed(context.Background(), p.token, 0, 0)
			f.mu.Lock()
			if a := f.accounts[p.account]; a != nil && a.token == p.token {
				switch {
				case upstream.ErrorCode(err) == upstream.CodeUnauthenticated || upstream.ErrorCode(err) == upstream.CodePaymentRequired:
					delete(f.accounts, p.account) // its next reader follows it again
				case err == nil && feed.Head > a.head:
					a.head, grew = feed.Head, true
				}
			}
			f.mu.Unlock()
		}
		if grew {
			f.mu.Lock()
			f.wakeLocked()
			f.mu.Unlock()
		}
	}
}

// wakeLocked wakes every reader waiting on the channel of wait.
func (f *follower) wakeLocked() {
	close(f.changed)
	f.changed = make(chan struct{})
}
