package main_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite" // PRAGMA integrity_check on the file after the server stopped
)

// TestSQLiteDiskFullBuiltBinary: the built binary on a SQLite file on a
// filesystem that fills up — a 16 MiB tmpfs the test mounts (root's;
// skipped, saying so, elsewhere) and fills with a file of its own while
// a client posts check-ins with Idempotency-Keys. Writes are answered 507
// storage_full with a detail that says reads still work, reads stay 200,
// writes come back as soon as the file is deleted (no restart), PRAGMA
// integrity_check is ok once the server stopped, and every acknowledged
// check-in is stored once.
func TestSQLiteDiskFullBuiltBinary(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=16m"); err != nil {
		t.Skipf("a full disk is a small tmpfs, and mounting one needs root (CAP_SYS_ADMIN): %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	db := filepath.Join(dir, "okr.db")
	boot := bootstrapDB(t, db, "Full", "ops@full.test")
	srv := startServer(t, db, "--rate-limit", "off")

	hc := &http.Client{Timeout: 30 * time.Second}
	type answer struct {
		status int
		code   string
		detail string
	}
	call := func(method, path string, body any, key string) (answer, []byte) {
		var rd io.Reader
		if body != nil {
			raw, _ := json.Marshal(body)
			rd = bytes.NewReader(raw)
		}
		req, _ := http.NewRequest(method, srv.base+path, rd)
		req.Header.Set("Authorization", "Bearer "+boot.Token)
		req.Header.Set("service-accountId", boot.AccountID)
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		res, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		var p struct{ Code, Detail string }
		_ = json.Unmarshal(b, &p)
		return answer{res.StatusCode, p.Code, p.Detail}, b
	}
	kr := newKeyResult(t, func(path string, body any) (int, []byte) {
		a, b := call("POST", path, body, "")
		return a.status, b
	}, 100000)
	acked := map[int]bool{}
	// A check-in's note makes each one take space: the disk fills in
	// tens of them, not thousands.
	note := string(bytes.Repeat([]byte("n"), 2000))
	checkIn := func(v int) (answer, []byte) {
		a, b := call("POST", "/api/v1/metrics/"+kr+"/checkin", map[string]any{"actual": v, "comment": note}, fmt.Sprint("ci-", v))
		if a.status == http.StatusCreated {
			acked[v] = true
		}
		if a.status == http.StatusInternalServerError {
			t.Errorf("check-in %d: 500 %s", v, b)
		}
		return a, b
	}
	for v := 1; v <= 5; v++ {
		if a, b := checkIn(v); a.status != http.StatusCreated {
			t.Fatalf("check-in before the disk filled: %d %s", a.status, b)
		}
	}

	// Fill the filesystem with a file of the test's.
	ballast := filepath.Join(dir, "ballast")
	fill, err := os.Create(ballast)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	for {
		if _, err := fill.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	fill.Close()

	full := 0
	v := 100
	for ; v < 600 && full < 3; v++ {
		a, b := checkIn(v)
		switch a.status {
		case http.StatusCreated:
		case http.StatusInsufficientStorage, http.StatusServiceUnavailable:
			if a.code != "storage_full" || a.detail == "" {
				t.Fatalf("check-in on a full disk: %d %s, want storage_full with a detail", a.status, b)
			}
			full++
		default:
			t.Fatalf("check-in on a full disk: %d %s", a.status, b)
		}
	}
	if full == 0 {
		t.Fatalf("the disk never filled up: %d check-ins acknowledged", len(acked))
	}
	for _, path := range []string{"/api/v1/metrics/" + kr, "/api/v1/metrics/" + kr + "/checkins?limit=1000", "/api/v1/goals"} {
		if a, b := call("GET", path, nil, ""); a.status != http.StatusOK {
			t.Errorf("read on a full disk, GET %s: %d %s", path, a.status, b)
		}
	}

	// Space freed: writes come back without a restart.
	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	back := false
	for deadline := time.Now().Add(30 * time.Second); !back && time.Now().Before(deadline); v++ {
		a, _ := checkIn(v)
		back = a.status == http.StatusCreated
		if !back {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if !back {
		t.Fatal("no check-in acknowledged within 30s of the space being freed")
	}

	var page struct{ Items []struct{ Actual float64 } }
	if _, b := call("GET", "/api/v1/metrics/"+kr+"/checkins?limit=1000", nil, ""); json.Unmarshal(b, &page) != nil {
		t.Fatalf("list check-ins: %s", b)
	}
	stored := map[int]int{}
	for _, c := range page.Items {
		stored[int(c.Actual)]++
	}
	for v := range acked {
		if stored[v] != 1 {
			t.Errorf("acknowledged check-in %d stored %d times", v, stored[v])
		}
	}
	srv.stop(t)
	check, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	var result string
	if err := check.QueryRowContext(context.Background(), "PRAGMA integrity_check").Scan(&result); err != nil || result != "ok" {
		t.Errorf("PRAGMA integrity_check: %q %v", result, err)
	}
	t.Logf("%d check-ins acknowledged (%d stored), %d answered storage_full", len(acked), len(page.Items), full)
}
