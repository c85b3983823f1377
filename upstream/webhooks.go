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
	// AllowPrivate allows every address CheckAddr would refuse (tests,
	// local use: serve --webhook-allow-private).
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
	if ip, err := netip.ParseAddr(u.Hostname()); err == nil && !p.AllowPrivate && !PublicAddr(ip) {
		return Invalid("url", "address %s is private, loopback or otherwise not public; start the server with --webhook-allow-private to allow it", ip)
	}
	return nil
}

// CheckAddr refuses every address that is not a public unicast one,
// unless AllowPrivate: loopback, private (RFC 1918, unique local),
// link-local, multicast, unspecified, carrier-grade NAT, "this network"
// (0.0.0.0/8), IETF protocol assignments, benchmarking and reserved IPv4
// ranges, deprecated site-local IPv6, the local-use NAT64 prefix
// 64:ff9b:1::/48 and the discard prefix. IPv6 forms that carry an IPv4
// address (IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, NAT64
// 64:ff9b::/96, 6to4 2002::/16, Teredo 2001::/32) are decoded and the
// IPv4 rules applied to what they carry, so 64:ff9b::10.0.0.1 is refused
// like 10.0.0.1. The error never names the address: at dial time it is
// one a name resolved to, which the caller did not write.
func (p WebhookTargetPolicy) CheckAddr(ip netip.Addr) error {
	if p.AllowPrivate || PublicAddr(ip) {
		return nil
	}
	return Invalid("url", "the target resolves to a private, loopback or otherwise non-public address; start the server with --webhook-allow-private to allow it")
}

// Address ranges PublicAddr refuses beyond what net/netip classifies.
var (
	nonPublic4 = []netip.Prefix{
		netip.MustParsePrefix("0.0.0.0/8"),     // "this network" (RFC 791); 0.0.0.0 reaches the local host
		netip.MustParsePrefix("100.64.0.0/10"), // carrier-grade NAT (RFC 6598)
		netip.MustParsePrefix("192.0.0.0/24"),  // IETF protocol assignments (RFC 6890)
		netip.MustParsePrefix("198.18.0.0/15"), // benchmarking (RFC 2544)
		netip.MustParsePrefix("240.0.0.0/4"),   // reserved, and the broadcast address
	}
	nonPublic6 = []netip.Prefix{
		netip.MustParsePrefix("fec0::/10"),      // site-local, deprecated (RFC 3879)
		netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64 (RFC 8215): only ever inside a network
		netip.MustParsePrefix("100::/64"),       // discard-only (RFC 6666)
	}
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
	teredo    = netip.MustParsePrefix("2001::/32")
	v4compat  = netip.MustParsePrefix("::/96")
	siit      = netip.MustParsePrefix("::ffff:0:0:0/96") // IPv4-translated (RFC 2765)
)

// PublicAddr reports whether ip is a public unicast address, deciding an
// IPv6 address that embeds an IPv4 one by the IPv4 address(es) it embeds
// (see WebhookTargetPolicy.CheckAddr).
func PublicAddr(ip netip.Addr) bool {
	ip = ip.WithZone("").Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	if ip.Is4() {
		return !inAny(ip, nonPublic4)
	}
	if inAny(ip, nonPublic6) {
		return false
	}
	for _, v4 := range EmbeddedIPv4(ip) {
		if !PublicAddr(v4) {
			return false
		}
	}
	return true
}

// EmbeddedIPv4 returns the IPv4 addresses an IPv6 address carries:
// IPv4-compatible ::a.b.c.d (RFC 4291, deprecated), IPv4-translated
// ::ffff:0:a.b.c.d (RFC 2765) and NAT64
// 64:ff9b::a.b.c.d (RFC 6052) in the last 32 bits, 6to4 2002:AABB:CCDD::
// (RFC 3056) in bits 16-47, and Teredo 2001:0:SSSS:SSSS::CCCC:CCCC
// (RFC 4380) its server in bits 32-63 and its client, inverted, in the
// last 32 bits. Other addresses (IPv4-mapped ones are unmapped by the
// caller) carry none.
func EmbeddedIPv4(ip netip.Addr) []netip.Addr {
	if !ip.Is6() || ip.Is4In6() {
		return nil
	}
	b := ip.As16()
	v4 := func(x [4]byte) netip.Addr { return netip.AddrFrom4(x) }
	switch {
	case v4compat.Contains(ip), siit.Contains(ip):
		return []netip.Addr{v4([4]byte(b[12:16]))}
	case nat64.Contains(ip):
		return []netip.Addr{v4([4]byte(b[12:16]))}
	case sixToFour.Contains(ip):
		return []netip.Addr{v4([4]byte(b[2:6]))}
	case teredo.Contains(ip):
		client := [4]byte{^b[12], ^b[13], ^b[14], ^b[15]}
		return []netip.Addr{v4([4]byte(b[4:8])), v4(client)}
	}
	return nil
}

func inAny(ip netip.Addr, ps []netip.Prefix) bool {
	for _, p := range ps {
		if p.Contains(ip) {
			return true
		}
	}
	return false
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
