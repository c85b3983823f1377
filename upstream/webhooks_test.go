package upstream_test

import (
	"errors"
	"net"
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
