// Command tlsproxy is an HTTPS proxy for tests: it answers CONNECT for one
// host, ends TLS itself with a certificate of a throw-away certificate
// authority it makes at start, and forwards the requests inside to a local
// HTTP server. It lets a program whose base URL is fixed to the real
// platform's (https://app.gtmhub.com) run unchanged against okrgate: the
// program is given HTTPS_PROXY and the authority's certificate
// (REQUESTS_CA_BUNDLE for Python's requests), and nothing else changes.
//
//	go run ./cmd/okrgate/internal/tlsproxy --host app.gtmhub.com --upstream http://127.0.0.1:8080 --ca ca.pem --log requests.log
//
// It prints "tlsproxy listening on ADDR" when ready, writes one line per
// forwarded request to --log ("METHOD PATH STATUS"), and runs until
// interrupted. The authority's key never leaves the process. It listens on
// loopback only and refuses CONNECT to any other host.
package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"sync"
	"time"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "loopback `address` to listen on")
	host := flag.String("host", "app.gtmhub.com", "the one `host` CONNECT may name")
	upstream := flag.String("upstream", "", "`URL` of the HTTP server requests go to (required)")
	caOut := flag.String("ca", "ca.pem", "`file` to write the authority's certificate to (PEM)")
	logOut := flag.String("log", "", "`file` to append one line per forwarded request to (none: stderr)")
	flag.Parse()
	if err := run(*listen, *host, *upstream, *caOut, *logOut); err != nil {
		fmt.Fprintln(os.Stderr, "tlsproxy:", err)
		os.Exit(1)
	}
}

func run(listen, host, upstream, caOut, logOut string) error {
	target, err := url.Parse(upstream)
	if err != nil || target.Scheme != "http" || target.Host == "" {
		return fmt.Errorf("--upstream %q: want an http:// URL", upstream)
	}
	var reqLog io.Writer = os.Stderr
	if logOut != "" {
		f, err := os.OpenFile(logOut, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		reqLog = f
	}
	ca, err := newAuthority()
	if err != nil {
		return err
	}
	if err := os.WriteFile(caOut, ca.certPEM, 0o644); err != nil {
		return err
	}
	leaf, err := ca.issue(host)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		ln.Close()
		return fmt.Errorf("--listen %s: loopback addresses only", listen)
	}
	p := &proxy{host: host, tlsConfig: &tls.Config{Certificates: []tls.Certificate{leaf}, MinVersion: tls.VersionTLS12},
		inner: newInner(target, reqLog)}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		srv.Close()
		p.inner.Close()
	}()
	fmt.Printf("tlsproxy listening on %s\n", ln.Addr())
	go func() { _ = p.inner.Serve(p.conns()) }()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// proxy answers CONNECT for its host and hands each tunnel, once TLS is
// ended, to inner, an http.Server that forwards to the upstream.
type proxy struct {
	host      string
	tlsConfig *tls.Config
	inner     *http.Server
	once      sync.Once
	ln        *chanListener
}

// conns is the listener of the tunnels, once TLS is ended: inner serves it.
func (p *proxy) conns() *chanListener {
	p.once.Do(func() { p.ln = &chanListener{ch: make(chan net.Conn), done: make(chan struct{})} })
	return p.ln
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host, _, err := net.SplitHostPort(r.Host)
	if r.Method != http.MethodConnect || err != nil || host != p.host {
		http.Error(w, "tlsproxy: only CONNECT "+p.host+":443", http.StatusForbidden)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "tlsproxy: cannot take the connection over", http.StatusInternalServerError)
		return
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		return
	}
	if _, err := conn.Write([]byte("HTTP/1.1 200 Connection Established\r\n\r\n")); err != nil || buf.Reader.Buffered() > 0 {
		conn.Close() // a client that speaks before the answer is not one this proxy serves
		return
	}
	ln := p.conns()
	select {
	case ln.ch <- tls.Server(conn, p.tlsConfig):
	case <-ln.done:
		conn.Close()
	}
}

// newInner is the server of the tunnels: a reverse proxy to target that
// logs each request with its status.
func newInner(target *url.URL, reqLog io.Writer) *http.Server {
	var mu sync.Mutex
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(target) },
		ModifyResponse: func(res *http.Response) error {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(reqLog, "%s %s %d\n", res.Request.Method, res.Request.URL.RequestURI(), res.StatusCode)
			return nil
		},
		ErrorLog: log.New(os.Stderr, "tlsproxy: ", 0),
	}
	return &http.Server{Handler: rp, ReadHeaderTimeout: 10 * time.Second}
}

// chanListener is a net.Listener of the connections sent on ch, until
// closed.
type chanListener struct {
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
}

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *chanListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *chanListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

// authority is a throw-away certificate authority.
type authority struct {
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
	certPEM []byte
}

func newAuthority() (*authority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "tlsproxy throw-away test authority"},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		MaxPathLenZero:        true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &authority{cert: cert, key: key, certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// issue makes a server certificate for host, signed by the authority.
func (a *authority) issue(host string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: host},
		DNSNames:     []string{host},
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, &key.PublicKey, a.key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der, a.cert.Raw}, PrivateKey: key}, nil
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	return n
}
