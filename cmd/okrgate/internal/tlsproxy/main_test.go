package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// syncBuffer is a log sink safe for the proxy's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// TestProxyEndsTLSAndForwards: a client that trusts only the throw-away
// authority reaches https://app.gtmhub.com through the proxy and gets the
// upstream's answer; the request is logged with its status; CONNECT to
// another host is refused.
func TestProxyEndsTLSAndForwards(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
		io.WriteString(w, r.Method+" "+r.URL.RequestURI())
	}))
	defer up.Close()
	target, _ := url.Parse(up.URL)
	ca, err := newAuthority()
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.issue("app.gtmhub.com")
	if err != nil {
		t.Fatal(err)
	}
	var reqLog syncBuffer
	p := &proxy{host: "app.gtmhub.com", tlsConfig: &tls.Config{Certificates: []tls.Certificate{leaf}}, inner: newInner(target, &reqLog)}
	go func() { _ = p.inner.Serve(p.conns()) }()
	defer p.inner.Close()
	front := httptest.NewServer(p)
	defer front.Close()

	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(ca.certPEM) {
		t.Fatal("the authority's PEM does not parse")
	}
	proxyURL, _ := url.Parse(front.URL)
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL), TLSClientConfig: &tls.Config{RootCAs: roots}}}
	res, err := c.Post("https://app.gtmhub.com/api/v1/fileserver/avatar/abc?x=1", "text/plain", strings.NewReader("hi"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusTeapot || string(body) != "POST /api/v1/fileserver/avatar/abc?x=1" {
		t.Fatalf("through the proxy: %d %q", res.StatusCode, body)
	}
	if got := reqLog.String(); got != "POST /api/v1/fileserver/avatar/abc?x=1 418\n" {
		t.Errorf("log %q", got)
	}
	if _, err := c.Get("https://example.com/"); err == nil {
		t.Error("CONNECT to another host was not refused")
	}
}
