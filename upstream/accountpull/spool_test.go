package accountpull

import (
	"context"
	"io"
	"strings"
	"testing"
)

// TestSpoolKeyed: a spool belongs to one pull — one source, one account,
// one page size — and a pull refuses the spool of another before it asks
// the source anything (a nil Source would panic if it did).
func TestSpoolKeyed(t *testing.T) {
	if SpoolKey("http://a", "acc") == SpoolKey("http://b", "acc") || SpoolKey("http://a", "acc") == SpoolKey("http://a", "acc2") {
		t.Fatal("spool keys do not tell sources and accounts apart")
	}
	dir := t.TempDir()
	if err := openSpool(dir, spoolID("http://a", "acc", 500)); err != nil {
		t.Fatal(err)
	}
	if err := openSpool(dir, spoolID("http://a", "acc", 500)); err != nil {
		t.Fatalf("the same pull again: %v", err)
	}
	for _, o := range []struct {
		Options
		account string
	}{
		{Options: Options{Spool: dir, SourceURL: "http://other", PageSize: 500}},
		{Options: Options{Spool: dir, SourceURL: "http://a", PageSize: 20}},
		{Options: Options{Spool: dir, SourceURL: "http://a", PageSize: 500}, account: "acc2"},
	} {
		account := "acc"
		if o.account != "" {
			account = o.account
		}
		_, err := Pull(context.Background(), nil, account, o.Options, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "holds another pull") {
			t.Errorf("%+v: %v, want the spool refused", o, err)
		}
	}
}
