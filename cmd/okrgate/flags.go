package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// errUsage reports bad flags or arguments; stderr has already said why.
var errUsage = errors.New("usage")

// errHelp reports that -h printed a command's usage: exit 0.
var errHelp = errors.New("help")

// cmdFlags is a subcommand's flag set with what -h prints about it.
type cmdFlags struct {
	*flag.FlagSet
	synopsis string // "okrgate backup --db FILE --to COPY"
	about    string // what the command does, a few lines
}

// newFlags returns the flag set of a subcommand.
func newFlags(name, synopsis, about string) *cmdFlags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {} // parse prints usage itself, to stdout for -h
	return &cmdFlags{FlagSet: fs, synopsis: synopsis, about: about}
}

// envName is the variable that gives flag name a value: OKRGATE_ and the
// name upper-cased, dashes as underscores (--max-inflight-reads:
// OKRGATE_MAX_INFLIGHT_READS).
func envName(flagName string) string {
	return "OKRGATE_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// parse parses args, then gives every flag not on the command line the
// value of its environment variable when that is set: a flag wins over the
// environment, the environment over the default. -h prints the usage to
// stdout and returns errHelp; a bad flag, a bad variable or a stray argument
// is reported on stderr and returns errUsage.
func (fs *cmdFlags) parse(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.printUsage(stdout)
			return errHelp
		}
		fs.hint(stderr)
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "unexpected arguments: %v\n", fs.Args())
		fs.hint(stderr)
		return errUsage
	}
	onCommandLine := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { onCommandLine[f.Name] = true })
	var bad error
	fs.VisitAll(func(f *flag.Flag) {
		v := getenv(envName(f.Name))
		if bad != nil || onCommandLine[f.Name] || v == "" {
			return
		}
		if err := fs.Set(f.Name, v); err != nil {
			bad = fmt.Errorf("%s=%q: %w", envName(f.Name), v, err)
		}
	})
	if bad != nil {
		fmt.Fprintln(stderr, bad)
		return errUsage
	}
	return nil
}

// hint points at -h after a usage error.
func (fs *cmdFlags) hint(w io.Writer) {
	fmt.Fprintf(w, "usage: %s\nRun \"okrgate %s -h\" for its flags.\n", fs.synopsis, fs.Name())
}

// printUsage writes the synopsis, the description and every flag with its
// default and its variable.
func (fs *cmdFlags) printUsage(w io.Writer) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", fs.synopsis, strings.TrimSpace(fs.about))
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		return
	}
	fmt.Fprintf(w, "\nFlags (each also from its environment variable; a flag wins):\n")
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if arg != "" {
			line += " " + arg
		}
		fmt.Fprintf(w, "%s\n    \t%s", line, strings.ReplaceAll(usage, "\n", "\n    \t"))
		switch f.DefValue {
		case "", "0", "false":
			fmt.Fprintf(w, " (env %s)\n", envName(f.Name))
		default:
			fmt.Fprintf(w, " (default %s; env %s)\n", f.DefValue, envName(f.Name))
		}
	})
}
