// Package dispatch delivers webhooks: it turns the event log into
// deliveries (through the store's queue), sends each as a signed JSON POST
// and records every attempt, retrying failures on a bounded exponential
// schedule. The rules (signature, retry schedule, target policy, what
// counts as delivered) are pure code in package upstream; this package is
// the I/O around them. docs/webhooks.md describes the behaviour.
package dispatch

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/okrgate/okrgate/upstream"
)

// Store is the delivery queue (sqlstore.Store implements it).
type Store interface {
	// EnqueueWebhookDeliveries turns new events into pending deliveries.
	EnqueueWebhookDeliveries(ctx context.Context, now time.Time) (int, error)
	// ClaimWebhookDeliveries leases up to limit due deliveries.
	ClaimWebhookDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]upstream.WebhookJob, error)
	// RecordWebhookAttempt records an attempt and the delivery's new state.
	RecordWebhookAttempt(ctx context.Context, account, id string, a upstream.WebhookAttempt, state string) error
	// NextWebhookAttempt returns when the earliest pending delivery is due.
	NextWebhookAttempt(ctx context.Context) (time.Time, bool, error)
	// WebhookQueueDepth counts the pending deliveries.
	WebhookQueueDepth(ctx context.Context) (int64, error)
	// ReleaseWebhookLeases drops the leases a previous run left, where
	// that is safe (one process per database).
	ReleaseWebhookLeases(ctx context.Context) error
	// EventsChanged is closed at the next commit that appends events.
	EventsChanged() <-chan struct{}
}

// Defaults of Options.
const (
	DefaultTimeout = 10 * time.Second // one attempt, connection to answer
	DefaultPoll    = 5 * time.Second  // look for work without a wake
	DefaultBatch   = 16               // deliveries claimed, and sent in parallel, at once
	// maxResponse is how much of a receiver's answer is read (and dropped)
	// so the connection can be reused.
	maxResponse = 64 << 10
)

// Options configure a Dispatcher.
type Options struct {
	Policy upstream.WebhookTargetPolicy // which targets deliveries may reach
	Retry  upstream.WebhookRetryPolicy  // zero: upstream.DefaultWebhookRetry
	// Timeout bounds one attempt (DefaultTimeout); a claimed delivery's
	// lease is twice that, so a stopped dispatcher's deliveries are taken
	// over after it.
	Timeout time.Duration
	Poll    time.Duration // DefaultPoll
	Batch   int           // DefaultBatch
	Log     *slog.Logger
	Metrics *Metrics // nil: not measured
	// Now reads the clock (time.Now).
	Now func() time.Time
}

// Dispatcher sends the deliveries of a store's queue.
type Dispatcher struct {
	st     Store
	o      Options
	client *http.Client
}

// New returns a dispatcher of st's queue.
func New(st Store, o Options) *Dispatcher {
	if o.Retry == (upstream.WebhookRetryPolicy{}) {
		o.Retry = upstream.DefaultWebhookRetry()
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.Batch <= 0 {
		o.Batch = DefaultBatch
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	dialer := &net.Dialer{Timeout: o.Timeout, Control: o.Policy.WebhookDialControl()}
	transport := &http.Transport{
		DialContext:           dialer.DialContext,
		Proxy:                 nil, // a proxy would connect to the target in our place, unchecked
		TLSHandshakeTimeout:   o.Timeout,
		ResponseHeaderTimeout: o.Timeout,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	client := &http.Client{
		Transport: transport,
		Timeout:   o.Timeout,
		// A redirect is an answer, not followed: its target was never
		// checked (upstream.WebhookAttemptSucceeded).
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &Dispatcher{st: st, o: o, client: client}
}

// Run delivers until ctx ends: it queues the deliveries of new events,
// sends those due, and sleeps until the next commit that appends events,
// the next due retry, or the poll interval, whichever comes first.
// Pending deliveries of an earlier run are in the queue and are sent like
// the others. Errors of the store are logged and retried at the next
// wake; Run returns nil when ctx ends.
func (d *Dispatcher) Run(ctx context.Context) error {
	if err := d.st.ReleaseWebhookLeases(ctx); err != nil && ctx.Err() == nil {
		// Not fatal: the leases expire by themselves.
		d.o.Log.Warn("webhooks: release the leases of the previous run", "err", err)
	}
	for {
		wake := d.st.EventsChanged()
		busy, err := d.step(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			d.o.Log.Warn("webhooks: dispatch", "err", err)
		}
		if busy && err == nil {
			continue
		}
		wait := d.o.Poll
		if next, ok, err := d.st.NextWebhookAttempt(ctx); err == nil && ok {
			wait = min(wait, max(next.Sub(d.o.Now()), time.Millisecond))
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// step queues new deliveries and sends one batch of due ones; busy is
// true when there may be more to do at once.
func (d *Dispatcher) step(ctx context.Context) (busy bool, err error) {
	queued, err := d.st.EnqueueWebhookDeliveries(ctx, d.o.Now())
	if err != nil {
		return false, err
	}
	jobs, err := d.st.ClaimWebhookDeliveries(ctx, d.o.Now(), 2*d.o.Timeout, d.o.Batch)
	if err != nil {
		return false, err
	}
	var wg sync.WaitGroup
	errs := make([]error, len(jobs))
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = d.deliver(ctx, j)
		}()
	}
	wg.Wait()
	if n, err := d.st.WebhookQueueDepth(ctx); err == nil {
		d.o.Metrics.queueDepth(n)
	}
	return queued > 0 || len(jobs) == d.o.Batch, errors.Join(errs...)
}

// deliver makes one attempt of j and records it.
func (d *Dispatcher) deliver(ctx context.Context, j upstream.WebhookJob) error {
	start := d.o.Now()
	status, sendErr := d.send(ctx, j, start)
	if ctx.Err() != nil {
		return nil // stopping: the lease expires (or is released at the next start) and the attempt is made again
	}
	a := upstream.WebhookAttempt{Attempt: j.Attempt, At: upstream.FormatTime(start), StatusCode: status,
		DurationMs: d.o.Now().Sub(start).Milliseconds()}
	if sendErr != nil {
		a.Error = sendErr.Error()
	} else if !upstream.WebhookAttemptSucceeded(status) {
		a.Error = fmt.Sprintf("the receiver answered %d", status)
	}
	state, next := upstream.WebhookOutcome(d.o.Retry, j.CreatedAt, j.Attempt, d.o.Now(), status)
	if state == upstream.DeliveryPending {
		a.NextAttemptAt = upstream.FormatTime(next)
	}
	d.o.Metrics.attempt(status, sendErr, state, j.Attempt)
	if state != upstream.DeliverySucceeded {
		logErr := a.Error
		if f := (failure{}); errors.As(sendErr, &f) {
			logErr = f.kind + ": " + f.err.Error() // the operator's log keeps the addresses the record leaves out
		}
		d.o.Log.Info("webhooks: attempt failed", "delivery", j.ID, "webhook", j.WebhookID, "attempt", j.Attempt,
			"status", status, "err", logErr, "next", a.NextAttemptAt, "state", state)
	}
	if err := d.st.RecordWebhookAttempt(ctx, j.AccountID, j.ID, a, state); err != nil {
		return fmt.Errorf("webhooks: record attempt of %s: %w", j.ID, err)
	}
	return nil
}

// send POSTs j's payload, signed at at, and returns the receiver's status.
// The target URL is checked again (the policy may have changed since the
// webhook was saved), and each address it resolves to when connecting.
func (d *Dispatcher) send(ctx context.Context, j upstream.WebhookJob, at time.Time) (int, error) {
	if err := d.o.Policy.CheckURL(j.URL); err != nil {
		return 0, refusal{upstream.ErrorMessage(err)}
	}
	body, err := j.Payload().Body()
	if err != nil {
		return 0, fmt.Errorf("encode payload: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, d.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, j.URL, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "okrgate-webhooks/1")
	req.Header.Set(upstream.WebhookSignatureHeader, upstream.SignWebhook([]byte(j.Secret), at, body))
	req.Header.Set("Okrgate-Delivery", j.ID)
	req.Header.Set("Okrgate-Event", string(j.Type))
	req.Header.Set("Okrgate-Attempt", strconv.Itoa(j.Attempt))
	resp, err := d.client.Do(req)
	if err != nil {
		return 0, describe(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponse))
	return resp.StatusCode, nil
}

// describe turns a client error into what the delivery record shows
// admins: the policy's refusal of an address reads as such, and other
// failures are named by kind (name lookup, connection refused, timeout,
// TLS, ...) without the error's text, which names the addresses a host
// name resolved to and the resolver's own — addresses inside the server's
// network that an admin has no need to see. The log keeps the full error.
func describe(err error) error {
	var ue *upstream.Error
	if errors.As(err, &ue) {
		return refusal{ue.Message}
	}
	return failure{kind(err), err}
}

// kind names a failed request's cause without any address.
func kind(err error) string {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var recordErr tls.RecordHeaderError
	var opErr *net.OpError
	switch {
	case errors.As(err, &dnsErr):
		switch {
		case dnsErr.IsNotFound:
			return "the host name does not resolve"
		case dnsErr.IsTimeout:
			return "the host name lookup timed out"
		}
		return "the host name lookup failed"
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return "timed out"
	case errors.As(err, &certErr):
		return "the receiver's TLS certificate was not accepted"
	case errors.As(err, &recordErr):
		return "the receiver did not answer TLS"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return "the connection was closed before an answer"
	case errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH):
		return "the receiver is unreachable"
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return "could not connect"
	case errors.As(err, &opErr) && opErr.Op == "remote error":
		return "the TLS handshake failed"
	}
	return "the request failed"
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// failure is an attempt that got no answer: Error is what the delivery
// record shows (kind), Unwrap the full error for the log.
type failure struct {
	kind string
	err  error
}

func (f failure) Error() string { return f.kind }
func (f failure) Unwrap() error { return f.err }

// refusal is an attempt the target policy stopped before any byte was sent.
type refusal struct{ msg string }

func (r refusal) Error() string { return "target refused: " + r.msg }

func isRefusal(err error) bool {
	var r refusal
	return errors.As(err, &r)
}
