package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// pprofFlags is serve's opt-in profiling listener: net/http/pprof's
// handlers on a loopback address of their own, off by default. They are
// for measuring the server under load (docs/operations.md, "Profiles"),
// never on the API's address: a profile names the code's paths and what
// the heap holds.
type pprofFlags struct{ addr string }

func addPprofFlags(fs *flag.FlagSet) *pprofFlags {
	p := &pprofFlags{}
	fs.StringVar(&p.addr, "pprof-addr", "off", "listen `address` of Go's /debug/pprof/ profiles (a loopback address such as 127.0.0.1:6060; off by default)")
	return p
}

// start serves /debug/pprof/ on the flag's address until ctx ends, unless
// it is off, and says where on stdout. An address that is not loopback is
// refused: profiles are not for the network.
func (p *pprofFlags) start(ctx context.Context, log *slog.Logger, stdout io.Writer) error {
	if p.addr == "" || p.addr == "off" {
		return nil
	}
	host, _, err := net.SplitHostPort(p.addr)
	if err != nil {
		return fmt.Errorf("--pprof-addr %q: %w", p.addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("--pprof-addr %q: profiles are served on a loopback address only (127.0.0.1:PORT)", p.addr)
	}
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		return fmt.Errorf("pprof listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("pprof server", "err", err)
		}
	}()
	context.AfterFunc(ctx, func() { _ = srv.Close() })
	fmt.Fprintf(stdout, "okrgate profiles on http://%s/debug/pprof/\n", ln.Addr())
	return nil
}
