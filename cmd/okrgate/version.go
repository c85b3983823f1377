package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// Set at link time by a build without version control information
// (go build -buildvcs=false, a source tarball, a container build without
// .git): go build -ldflags "-X main.linkVersion=v1.2.0 -X main.linkCommit=$(git rev-parse HEAD)".
// Empty otherwise: the toolchain's record is read.
var linkVersion, linkCommit string

// version writes the module version and the commit the binary was built
// from: those given at link time (linkVersion, linkCommit), else as the Go
// toolchain recorded them (go install module@version records the module's
// version). A build with neither says "unknown commit"; a build from a
// source tree says "(devel)".
func version(w io.Writer) {
	v, commit := "(devel)", "unknown commit"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		var rev, at, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					modified = ", modified"
				}
			}
		}
		if rev != "" {
			commit = "commit " + rev
			if at != "" {
				commit += " " + at
			}
			commit += modified
		}
	}
	if linkVersion != "" {
		v = linkVersion
	}
	if linkCommit != "" {
		commit = "commit " + linkCommit
	}
	fmt.Fprintf(w, "okrgate %s (%s) %s %s/%s\n", v, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
