package upstream_test

import (
	"errors"
	"net"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/okrgate/okrgate/upstream"
)

func TestWebhookSignature(t *testing.T) {
	secret := []byte("whsec_test")
	body := []byte(`{"type":"checkIn.created"}`)
	at := time.Unix(1_800_000_000, 0)
	h := upstream.SignWebhook(secret, at, body)
	if err := upstream.VerifyWebhook(secret, h, body, at.Add(time.Minute), 5*time.Minute); err != nil {
		t.Fatalf("a fresh signature does not verify: %v", err)
	}
	for name, c := range map[string]struct {
		secret []byte
		header string
		body   []byte
		now    time.Time
		want   error
	}{
		"other body":      {secret, h, []byte(`{}`), at, upstream.ErrWebhookSignature},
		"other secret":    {[]byte("x"), h, body, at, upstream.ErrWebhookSignature},
		"replayed later":  {secret, h, body, at.Add(time.Hour), upstream.ErrWebhookStale},
		"malformed":       {secret, "v1=zz", body, at, upstream.ErrWebhookSignature},
		"timestamp moved": {secret, "t=1800000001," + h[len("t=1800000000,"):], body, at, upstream.ErrWebhookSignature},
	} {
		if err := upstream.VerifyWebhook(c.secret, c.header, c.body, c.now, 5*time.Minute); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	// A rotated secret: two v1 values, either verifies.
	both := h + ",v1=" + upstream.SignWebhook([]byte("new"), at, body)[len("t=1800000000,v1="):]
	if err := upstream.VerifyWebhook([]byte("new"), both, body, at, time.Minute); err != nil {
		t.Errorf("rotated secret: %v", err)
	}
}

func TestWebhookNextAttempt(t *testing.T) {
	first := time.Unix(0, 0)
	at := first
	var gaps []time.Duration
	for attempt := 1; ; attempt++ {
		next, ok := upstream.WebhookNextAttempt(first, attempt, at)
		if !ok {
			break
		}
		gaps = append(gaps, next.Sub(at))
		at = next
	}
	if gaps[0] != upstream.WebhookFirstRetry || gaps[1] != 2*upstream.WebhookFirstRetry {
		t.Errorf("first gaps %v, want doubling from %v", gaps[:2], upstream.WebhookFirstRetry)
	}
	for _, g := range gaps {
		if g > upstream.WebhookMaxRetryGap {
			t.Errorf("gap %v over the cap", g)
		}
	}
	if at.Sub(first) > upstream.WebhookRetryFor {
		t.Errorf("retried for %v, over %v", at.Sub(first), upstream.WebhookRetryFor)
	}
}

func TestWebhookTargetPolicy(t *testing.T) {
	strict := upstream.WebhookTargetPolicy{}
	for _, u := range []string{"http://127.0.0.1:9000/hook", "https://10.1.2.3/x", "http://[::1]/", "http://169.254.169.254/latest",
		"ftp://example.com/", "https://user:pw@example.com/", "/relative", "http://0.0.0.0/", "http://100.64.0.1/"} {
		if err := strict.CheckURL(u); err == nil {
			t.Errorf("%s allowed by default", u)
		}
	}
	if err := strict.CheckURL("https://hooks.example.com/okr"); err != nil {
		t.Errorf("a public name refused: %v", err)
	}
	local := upstream.WebhookTargetPolicy{AllowPrivate: true}
	if err := local.CheckURL("http://127.0.0.1:9000/hook"); err != nil {
		t.Errorf("--webhook-allow-private refused loopback: %v", err)
	}
	listed := upstream.WebhookTargetPolicy{AllowHosts: []string{"*.example.com", "hooks.test"}}
	for u, ok := range map[string]bool{"https://a.example.com/": true, "https://example.com/": false, "https://hooks.test/": true, "https://evil.test/": false} {
		if err := listed.CheckURL(u); (err == nil) != ok {
			t.Errorf("allow-list on %s: %v", u, err)
		}
	}
	// The dialer check refuses a name that resolved to loopback.
	d := net.Dialer{Control: strict.WebhookDialControl()}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if c, err := d.Dial("tcp", ln.Addr().String()); err == nil {
		c.Close()
		t.Error("the dialer connected to loopback")
	}
}

// TestWebhookTargetIPv6Forms checks every IPv6 form that carries an IPv4
// address: each is decided by the IPv4 address it carries, on the URL and
// at dial time, and the dial-time refusal does not name the address.
func TestWebhookTargetIPv6Forms(t *testing.T) {
	strict := upstream.WebhookTargetPolicy{}
	refused := map[string]string{
		"IPv4-mapped loopback":           "::ffff:127.0.0.1",
		"IPv4-mapped private":            "::ffff:10.0.0.1",
		"IPv4-compatible loopback":       "::127.0.0.1",
		"IPv4-compatible private":        "::192.168.1.1",
		"IPv4-compatible metadata":       "::169.254.169.254",
		"IPv4-translated private":        "::ffff:0:10.1.2.3",
		"NAT64 loopback":                 "64:ff9b::127.0.0.1",
		"NAT64 private":                  "64:ff9b::10.0.0.1",
		"NAT64 metadata":                 "64:ff9b::a9fe:a9fe", // 169.254.169.254 in hex
		"NAT64 CGNAT":                    "64:ff9b::100.64.0.1",
		"NAT64 local-use, public inside": "64:ff9b:1::8.8.8.8",
		"NAT64 local-use, any":           "64:ff9b:1:abcd::1",
		"6to4 loopback":                  "2002:7f00:1::1",
		"6to4 private":                   "2002:c0a8:0101::1", // 192.168.1.1
		"6to4 metadata":                  "2002:a9fe:a9fe::",
		"Teredo client loopback":         "2001:0:4136:e378:8000:63bf:80ff:fffe", // client ^0x80fffffe = 127.0.0.1
		"Teredo client private":          "2001:0:4136:e378::f5ff:fffe",          // client 10.0.0.1
		"Teredo server private":          "2001:0:a00:1::f7f7:f7f7",              // server 10.0.0.1, client 8.8.8.8
		"this network":                   "0.1.2.3",
		"broadcast":                      "255.255.255.255",
		"benchmarking":                   "198.18.0.1",
		"site-local":                     "fec0::1",
		"unique local":                   "fd00::1",
		"link-local with zone":           "fe80::1%eth0",
	}
	for name, a := range refused {
		ip := netip.MustParseAddr(a)
		if upstream.PublicAddr(ip) {
			t.Errorf("%s: %s is public", name, a)
		}
		host := a
		if ip.Is6() {
			host = "[" + strings.ReplaceAll(a, "%", "%25") + "]"
		}
		if err := strict.CheckURL("https://" + host + "/hook"); upstream.ErrorCode(err) != upstream.CodeInvalid {
			t.Errorf("%s: URL with %s: %v, want invalid_input", name, a, err)
		}
		err := strict.CheckAddr(ip)
		if err == nil {
			t.Errorf("%s: dialling %s allowed", name, a)
			continue
		}
		if msg := upstream.ErrorMessage(err); strings.Contains(msg, ip.WithZone("").String()) || strings.Contains(msg, ip.Unmap().String()) {
			t.Errorf("%s: the refusal names the address: %q", name, msg)
		}
		if err := (upstream.WebhookTargetPolicy{AllowPrivate: true}).CheckAddr(ip); err != nil {
			t.Errorf("%s: --webhook-allow-private refused %s: %v", name, a, err)
		}
	}
	public := map[string]string{
		"IPv4":                   "8.8.8.8",
		"IPv6":                   "2606:4700:4700::1111",
		"IPv4-mapped public":     "::ffff:8.8.8.8",
		"IPv4-compatible public": "::8.8.8.8",
		"NAT64 public":           "64:ff9b::8.8.8.8",
		"6to4 public":            "2002:0808:0808::1",
		"Teredo public":          "2001:0:4136:e378:8000:63bf:f7f7:f7f7", // server 65.54.227.120, client 8.8.8.8
	}
	for name, a := range public {
		if ip := netip.MustParseAddr(a); !upstream.PublicAddr(ip) || strict.CheckAddr(ip) != nil {
			t.Errorf("%s: %s refused", name, a)
		}
	}
	// What each form carries.
	for a, want := range map[string][]string{
		"::10.0.0.1":                           {"10.0.0.1"},
		"64:ff9b::a00:1":                       {"10.0.0.1"},
		"2002:a00:1::":                         {"10.0.0.1"},
		"2001:0:4136:e378:8000:63bf:f5ff:fffe": {"65.54.227.120", "10.0.0.1"},
		"2606:4700:4700::1111":                 nil,
	} {
		var got []string
		for _, v4 := range upstream.EmbeddedIPv4(netip.MustParseAddr(a)) {
			got = append(got, v4.String())
		}
		if !slices.Equal(got, want) {
			t.Errorf("EmbeddedIPv4(%s) = %v, want %v", a, got, want)
		}
	}
}
