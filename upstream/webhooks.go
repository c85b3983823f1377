package upstream

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// WebhookSignatureHeader is the header of a delivery's signature:
// "t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed by the
// webhook's secret>", in the style of Stripe's signatures. The timestamp is
// signed with the body, so a captured delivery cannot be replayed later
// than the receiver's tolerance.
const WebhookSignatureHeader = "Okrgate-Signature"

// SignWebhook returns the signature header value of body sent at t.
func SignWebhook(secret []byte, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(webhookMAC(secret, ts, body))
}

func webhookMAC(secret []byte, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts))
	m.Write([]byte("."))
	m.Write(body)
	return m.Sum(nil)
}

// Errors of VerifyWebhook.
var (
	ErrWebhookSignature = errors.New("webhook: signature does not match")
	ErrWebhookStale     = errors.New("webhook: timestamp outside the tolerance")
)

// VerifyWebhook checks a signature header against body, as a receiver
// does: the MAC must match (compared in constant time) and the timestamp
// must be within tolerance of now. Several v1 values (a secret being
// rotated) are accepted when any matches.
func VerifyWebhook(secret []byte, header string, body []byte, now time.Time, tolerance time.Duration) error {
	var ts string
	var sigs [][]byte
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		switch k {
		case "t":
			ts = v
		case "v1":
			if b, err := hex.DecodeString(v); err == nil {
				sigs = append(sigs, b)
			}
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return fmt.Errorf("%w: malformed header", ErrWebhookSignature)
	}
	want := webhookMAC(secret, ts, body)
	ok := false
	for _, s := range sigs {
		ok = ok || hmac.Equal(s, want)
	}
	if !ok {
		return ErrWebhookSignature
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return ErrWebhookStale
	}
	return nil
}

// Retry schedule of deliveries: exponential from WebhookFirstRetry,
// doubling, capped at WebhookMaxRetryGap, abandoned once WebhookRetryFor
// has passed since the first attempt.
const (
	WebhookFirstRetry  = 10 * time.Second
	WebhookMaxRetryGap = time.Hour
	WebhookRetryFor    = 24 * time.Hour
)

// WebhookRetryPolicy is a retry schedule: the gap after the first failed
// attempt is First, doubling after each further failure up to MaxGap; a
// delivery whose next attempt would come later than For after its first
// is abandoned. DefaultWebhookRetry is the server's; tests shorten it.
type WebhookRetryPolicy struct {
	First, MaxGap, For time.Duration
}

// DefaultWebhookRetry returns the default schedule: 10 s, 20 s, 40 s, …
// capped at one hour, for 24 hours.
func DefaultWebhookRetry() WebhookRetryPolicy {
	return WebhookRetryPolicy{First: WebhookFirstRetry, MaxGap: WebhookMaxRetryGap, For: WebhookRetryFor}
}

// Next returns when to try a delivery again after its attempt-th failed
// attempt (1 for the first), first made at first; ok is false when the
// delivery is to be abandoned.
func (p WebhookRetryPolicy) Next(first time.Time, attempt int, failedAt time.Time) (next time.Time, ok bool) {
	gap := p.First
	for i := 1; i < attempt && gap < p.MaxGap; i++ {
		gap *= 2
	}
	gap = min(gap, p.MaxGap)
	next = failedAt.Add(gap)
	if next.Sub(first) > p.For {
		return time.Time{}, false
	}
	return next, true
}

// WebhookNextAttempt is DefaultWebhookRetry().Next.
func WebhookNextAttempt(first time.Time, attempt int, failedAt time.Time) (next time.Time, ok bool) {
	return DefaultWebhookRetry().Next(first, attempt, failedAt)
}

// WebhookTargetPolicy decides which URLs deliveries may go to.
type WebhookTargetPolicy struct {
	// AllowPrivate allows loopback, private, link-local and unspecified
	// addresses (tests, local use: serve --webhook-allow-private).
	AllowPrivate bool
	// AllowHosts, when not empty, is the only hosts allowed (exact names,
	// or "*.example.com" for its subdomains).
	AllowHosts []string
}

// CheckURL checks a target URL's form and host: https (or http), no user
// information, and a host the allow-list admits. Addresses are checked by
// CheckAddr when the delivery connects, so a name that resolves to a
// private address is refused too.
func (p WebhookTargetPolicy) CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return Invalid("url", "must be an absolute http or https URL")
	}
	if u.User != nil {
		return Invalid("url", "must not carry user information")
	}
	if len(p.AllowHosts) > 0 && !hostAllowed(u.Hostname(), p.AllowHosts) {
		return Invalid("url", "host %q is not in the webhook allow-list", u.Hostname())
	}
	if ip, err := netip.ParseAddr(u.Hostname()); err == nil {
		return p.CheckAddr(ip)
	}
	return nil
}

// CheckAddr refuses loopback, private, link-local, multicast and
// unspecified addresses unless AllowPrivate.
func (p WebhookTargetPolicy) CheckAddr(ip netip.Addr) error {
	ip = ip.Unmap()
	if p.AllowPrivate {
		return nil
	}
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() || isSharedAddress(ip) {
		return Invalid("url", "address %s is private or loopback; start the server with --webhook-allow-private to allow it", ip)
	}
	return nil
}

// isSharedAddress reports the carrier-grade NAT range 100.64.0.0/10.
func isSharedAddress(ip netip.Addr) bool {
	return ip.Is4() && netip.MustParsePrefix("100.64.0.0/10").Contains(ip)
}

func hostAllowed(host string, allow []string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, a := range allow {
		a = strings.ToLower(a)
		if suffix, ok := strings.CutPrefix(a, "*."); ok {
			if strings.HasSuffix(host, "."+suffix) {
				return true
			}
		} else if host == a {
			return true
		}
	}
	return false
}

// WebhookDialControl returns a net.Dialer Control function that refuses
// connections to addresses the policy refuses, after name resolution (a
// DNS name pointing at 127.0.0.1 is refused like the literal).
func (p WebhookTargetPolicy) WebhookDialControl() func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		ip, err := netip.ParseAddr(host)
		if err != nil {
			return err
		}
		return p.CheckAddr(ip)
	}
}
