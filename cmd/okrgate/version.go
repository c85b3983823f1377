package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version writes the module version and the commit the binary was built
// from, as the Go toolchain recorded them. A build without version control
// information (go build -buildvcs=false, or outside a repository) says
// "unknown commit"; a build from a source tree says "(devel)".
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
	fmt.Fprintf(w, "okrgate %s (%s) %s %s/%s\n", v, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
