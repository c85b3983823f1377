package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"time"
)

// With --profile DIR each server is started with Go's profiles on its
// metrics listener, on a loopback port chosen here (okrgate serve
// --metrics-addr ADDR --pprof), and liveload saves, per server i:
// DIR/cpu-i.pprof, a CPU profile taken over the measured check-ins, and
// DIR/heap-i.pprof, the heap after them (with every connection open),
// DIR/heap-before-i.pprof, the heap before them (go tool pprof
// -sample_index=alloc_space -base DIR/heap-before-i.pprof DIR/heap-i.pprof
// shows what the check-ins allocated), and DIR/goroutine-i.pprof, its
// goroutines; and DIR/cpu-liveload.pprof, its own CPU profile over the
// same check-ins (the tool shares the machine with the servers). GODEBUG=memprofilerate=N in
// liveload's environment (which the servers inherit) samples the heap
// finer than Go's default of one sample per 512 KB.
// Read them with go tool pprof.

// freeAddr returns a loopback address with a port free at this moment, for
// a server's metrics listener.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// profiler takes the profiles of the servers listening on addrs.
type profiler struct {
	dir   string
	addrs []string
}

// cpu starts a CPU profile of seconds on every server and of this process,
// and returns a wait for them to be saved.
func (p *profiler) cpu(ctx context.Context, seconds int) func() error {
	own, err := os.Create(filepath.Join(p.dir, "cpu-liveload.pprof"))
	if err == nil {
		if err = pprof.StartCPUProfile(own); err != nil {
			own.Close()
		}
	}
	errs := make(chan error, len(p.addrs)+1)
	if err != nil {
		errs <- err
	} else {
		go func() {
			select {
			case <-time.After(time.Duration(seconds) * time.Second):
			case <-ctx.Done():
			}
			pprof.StopCPUProfile()
			errs <- own.Close()
		}()
	}
	for i, a := range p.addrs {
		go func() {
			errs <- p.save(ctx, a, "profile?seconds="+strconv.Itoa(seconds), fmt.Sprintf("cpu-%d.pprof", i))
		}()
	}
	return func() error {
		var first error
		for range len(p.addrs) + 1 {
			if err := <-errs; err != nil && first == nil {
				first = err
			}
		}
		return first
	}
}

// heap saves every server's heap profile as name-i.pprof, after a
// collection, and its goroutines as goroutine-i.pprof.
func (p *profiler) heap(ctx context.Context, name string) error {
	for i, a := range p.addrs {
		if err := p.save(ctx, a, "heap?gc=1", fmt.Sprintf("%s-%d.pprof", name, i)); err != nil {
			return err
		}
		if err := p.save(ctx, a, "goroutine", fmt.Sprintf("goroutine-%d.pprof", i)); err != nil {
			return err
		}
	}
	return nil
}

func (p *profiler) save(ctx context.Context, addr, path, name string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/debug/pprof/"+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("profile %s: %w", name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("profile %s: %s", name, resp.Status)
	}
	f, err := os.Create(filepath.Join(p.dir, name))
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return fmt.Errorf("profile %s: %w", name, err)
	}
	return f.Close()
}
