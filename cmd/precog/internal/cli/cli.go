// Package cli is precog's command line: it dispatches to subcommands,
// generates every help text from the commands' flag sets, and owns the exit
// status contract. Commands are values, so a test can run Main in-process
// with its own commands (for example vet with a test-only analyzer list) and
// a new subcommand is one more entry in the list that cmd/precog passes.
package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/precog-dev/precog/pipeline/instrument"
	"github.com/precog-dev/precog/pipeline/record"
)

// Exit statuses shared by every command. A command returns ExitFindings
// itself; Main returns ExitUsage for a UsageError (or an -instrument-deps
// pattern that instrument.PatternError refuses) and ExitError for any
// other error it prints.
const (
	ExitOK       = 0 // nothing to report
	ExitError    = 1 // precog could not do what was asked; the reason is on stderr
	ExitFindings = 3 // the command ran and reported findings (the status go vet uses)
	// ExitUsage is for a command line precog cannot take: no command or
	// an unknown one, a flag that is not defined or whose value does not
	// parse, a flag value out of range, input that names nothing the
	// command can use (a malformed -shard, a baseline file that does not
	// exist, an -instrument-deps pattern that matches no package of the
	// build). It is the status of the go command and of Go's flag package
	// for usage errors. A command returns it with a UsageError.
	ExitUsage = 2
)

// A UsageError is an error in what the user typed; Main prints it and
// exits with ExitUsage.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a UsageError with the formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{fmt.Errorf(format, args...)}
}

// Env is the world a command runs in. Tests use their own buffers and
// directory instead of the process's, so they can run in parallel.
type Env struct {
	Stdout io.Writer
	Stderr io.Writer
	// Dir is the directory relative paths and package patterns are
	// resolved against; empty means the current directory.
	Dir string
}

// Resolve resolves a relative path against the command's directory.
func (env *Env) Resolve(path string) string {
	if env.Dir == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(env.Dir, path)
}

// ProcessEnv returns the Env of the running process.
func ProcessEnv() *Env {
	return &Env{Stdout: os.Stdout, Stderr: os.Stderr}
}

// A Runner runs a command whose flags have been parsed, with the arguments
// left after them. It returns the exit status, or an error that Main prints
// on stderr, one "precog: " line per line of the error, before exiting with
// ExitError.
type Runner func(ctx context.Context, env *Env, args []string) (int, error)

// A Command is one precog subcommand.
type Command struct {
	Name    string // as typed after "precog"
	Args    string // synopsis of what follows the flags, such as "[packages]"
	Summary string // one line for "precog help": lower-case, no period
	// Doc is the text of "precog help NAME" between the usage line and the
	// flags: what the command does, its output and its exit statuses.
	Doc string
	// Define defines the command's flags on fs and returns the Runner that
	// uses them. Main calls it once per invocation, so flag values are never
	// shared between two runs.
	Define func(fs *flag.FlagSet) Runner
}

// Main runs the precog command line args (without the program name) with
// the given commands and returns the process exit status. "help" is always
// available and lists the commands in the order given.
//
// If WithSignals cancelled ctx, Main prints one line saying so, and where
// the recording so far was kept if -o asked for it, whatever the command
// returned, and returns the signal's exit status.
func Main(ctx context.Context, env *Env, cmds []*Command, args []string) int {
	code, err := dispatch(ctx, env, cmds, args)
	if intr, ok := context.Cause(ctx).(*Interrupt); ok {
		line := intr.Error()
		if kept := (*record.InterruptedError)(nil); errors.As(err, &kept) && kept.Out != "" {
			line += "; the tests recorded before it are kept in " + kept.Out + ", whose index.json marks the interrupted ones"
		}
		if h := (*InterruptHint)(nil); errors.As(err, &h) {
			line += "; " + h.Hint
		}
		fmt.Fprintf(env.Stderr, "precog: %s\n", line)
		return intr.ExitStatus()
	}
	if err != nil {
		for line := range strings.SplitSeq(err.Error(), "\n") {
			fmt.Fprintf(env.Stderr, "precog: %s\n", line)
		}
		if _, ok := errors.AsType[*UsageError](err); ok {
			return ExitUsage
		}
		// An -instrument-deps pattern is checked against the build
		// once the packages are loaded, by every command that
		// instruments them.
		if _, ok := errors.AsType[*instrument.PatternError](err); ok {
			return ExitUsage
		}
		return ExitError
	}
	return code
}

// An InterruptHint is the error of a command that an interrupt stopped
// with nothing to show, with what would have left something (precog
// test's -deadline), which Main adds to its line: a CI step's timeout that
// kills a run leaves the user knowing only that it was killed (held-out
// rehearsal 49's transfermanager, 15 minutes with no word of -deadline).
type InterruptHint struct {
	Err  error
	Hint string
}

func (e *InterruptHint) Error() string { return e.Err.Error() }

func (e *InterruptHint) Unwrap() error { return e.Err }

func dispatch(ctx context.Context, env *Env, cmds []*Command, args []string) (int, error) {
	if len(args) == 0 {
		usage(env.Stderr, cmds)
		return ExitUsage, nil
	}
	switch name := args[0]; name {
	case "help", "-h", "-help", "--help":
		return ExitOK, help(env.Stdout, cmds, args[1:])
	case "-V=full":
		// go vet -vettool asks for this to key its cache of results.
		return ExitOK, printVersion(env.Stdout)
	default:
		cmd := lookup(cmds, name)
		if cmd == nil {
			return ExitUsage, Usagef("unknown command %q (run 'precog help' for a list)", name)
		}
		fs := newFlagSet(cmd)
		run := cmd.Define(fs)
		durationErrors(fs)
		if err := fs.Parse(args[1:]); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				writeCommandHelp(env.Stdout, cmd, false)
				return ExitOK, nil
			}
			return ExitUsage, Usagef("%w (run 'precog help %s' for usage)", err, cmd.Name)
		}
		if err := checkPathFlags(fs); err != nil {
			return ExitUsage, fmt.Errorf("%w (run 'precog help %s' for usage)", err, cmd.Name)
		}
		return run(ctx, env, fs.Args())
	}
}

func lookup(cmds []*Command, name string) *Command {
	i := slices.IndexFunc(cmds, func(c *Command) bool { return c.Name == name })
	if i < 0 {
		return nil
	}
	return cmds[i]
}

// durationErrors gives each duration flag of fs the error of
// time.ParseDuration, which says what is wrong with a value, where the flag
// package's says only "parse error" ("-deadline 15": the unit is missing).
func durationErrors(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		if g, ok := f.Value.(flag.Getter); ok {
			if _, ok := g.Get().(time.Duration); ok {
				f.Value = &durationValue{g}
			}
		}
	})
}

// A durationValue is a duration flag's value whose Set returns
// time.ParseDuration's error.
type durationValue struct{ flag.Getter }

func (d *durationValue) Set(s string) error {
	if _, err := time.ParseDuration(s); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "time: ") + ` (a number and a unit, as in "90s" or "15m")`)
	}
	return d.Getter.Set(s)
}

// String is the value's; the zero durationValue's, which the flag package
// makes to tell a default from the zero value, is 0s.
func (d *durationValue) String() string {
	if d.Getter == nil {
		return time.Duration(0).String()
	}
	return d.Getter.String()
}

// newFlagSet returns a flag set that reports errors to Main instead of
// printing them with the whole usage text, so a bad flag costs one line.
func newFlagSet(cmd *Command) *flag.FlagSet {
	fs := flag.NewFlagSet("precog "+cmd.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

const overview = `precog finds the concurrency bugs that crash Go programs.

Usage:

	precog <command> [arguments]

The commands are:
`

const epilogue = `
Run 'precog help <command>' for more about a command.

precog also runs as a go vet tool, which analyzes one package at a time and
caches the results (the vet command's -json and check flags apply):

	go vet -vettool=$(command -v precog) ./...
`

// usage writes the overview: what precog is and which commands it has.
func usage(w io.Writer, cmds []*Command) {
	var b bytes.Buffer
	b.WriteString(overview)
	width := len("help")
	for _, c := range cmds {
		width = max(width, len(c.Name))
	}
	b.WriteString("\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "\t%-*s  %s\n", width, c.Name, c.Summary)
	}
	fmt.Fprintf(&b, "\t%-*s  %s\n", width, "help", "show help for precog or one of its commands")
	b.WriteString(epilogue)
	w.Write(b.Bytes())
}

// help implements "precog help [command]".
func help(w io.Writer, cmds []*Command, args []string) error {
	switch {
	case len(args) == 0:
		usage(w, cmds)
	case len(args) > 1:
		return Usagef("help takes at most one command, got %d", len(args))
	case args[0] == "help":
		fmt.Fprintf(w, "usage: precog help [command]\n\nHelp shows what precog's commands do, their flags and exit statuses.\n")
	default:
		cmd := lookup(cmds, args[0])
		if cmd == nil {
			return Usagef("unknown command %q (run 'precog help' for a list)", args[0])
		}
		writeCommandHelp(w, cmd, true)
	}
	return nil
}

// writeCommandHelp writes the usage line, the doc and the flags of cmd. The
// flags come from the same Define that the command runs with, so the help
// cannot drift from what the command accepts.
//
// Unless full, it writes only the doc's first paragraph (what the command
// does) and says where the rest is, as "go test -h" does: "precog test -h"
// is typed to find a flag, and the whole doc would put hundreds of lines
// of the checks' rules before the first one.
func writeCommandHelp(w io.Writer, cmd *Command, full bool) {
	fs := newFlagSet(cmd)
	cmd.Define(fs)
	synopsis := "precog " + cmd.Name
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		synopsis += " [flags]"
	}
	if cmd.Args != "" {
		synopsis += " " + cmd.Args
	}
	doc := strings.TrimLeft(cmd.Doc, "\n")
	if first, rest, ok := strings.Cut(doc, "\n\n"); !full && ok && strings.TrimSpace(rest) != "" {
		doc = fmt.Sprintf("%s\n\nRun 'precog help %s' for the whole description: what it reports, its output\nand its exit statuses.\n", first, cmd.Name)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "usage: %s\n\n%s", synopsis, doc)
	if hasFlags {
		b.WriteString("\nFlags:\n")
		fs.SetOutput(&b)
		fs.PrintDefaults()
	}
	w.Write(b.Bytes())
}

// ParseInterspersed parses the flags in args, which may come before, after
// or between the positional arguments, and returns the positional ones.
// Its errors are UsageErrors.
// flag.Parse stops at the first positional argument, and "dump FILE
// -sites S" or "record ./... -run X" is how people type it, as they do with
// go test. An argument "--" ends the flags.
func ParseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return nil, &UsageError{err}
		}
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	return pos, checkPathFlags(fs)
}

// checkPathFlags refuses the value of a directory or file flag (one whose
// usage names `dir` or `file`) that is a package pattern or another flag.
// The flag package takes the next argument as the value whatever it is, so
// "precog test -ci ./..." tested only the current package and wrote the
// results into a directory named "..." in the user's module, and "-ci -o
// X" took "-o" for the directory and X for a package. "-" stays allowed:
// -sarif takes it for stdout. A file whose name begins with "-" can still
// be named "./-name". Its error is a UsageError.
func checkPathFlags(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		kind, _ := flag.UnquoteUsage(f)
		if err != nil || kind != "dir" && kind != "file" {
			return
		}
		what := map[string]string{"dir": "directory", "file": "file"}[kind]
		v := f.Value.String()
		switch {
		case v == "-":
		case strings.HasPrefix(v, "-"):
			err = Usagef("-%s takes a %s, got the flag %s: write -%s %s %s", f.Name, what, v, f.Name, strings.ToUpper(kind), v)
		case slices.Contains(strings.Split(filepath.ToSlash(v), "/"), "..."):
			err = Usagef("-%s takes a %s, got the package pattern %s: write -%s %s %s", f.Name, what, v, f.Name, strings.ToUpper(kind), v)
		}
	})
	return err
}

// WorkDir returns the absolute directory a command works in: base (the
// process's working directory if empty), changed to by -C if given.
func WorkDir(base, c string) (string, error) {
	if base == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		base = wd
	}
	dir := base
	if c != "" {
		dir = c
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(base, dir)
		}
		fi, err := os.Stat(dir)
		if err != nil {
			return "", fmt.Errorf("-C: %w", err)
		}
		if !fi.IsDir() {
			return "", fmt.Errorf("-C: %s is not a directory", c)
		}
	}
	return filepath.Abs(dir)
}

// ParseTestCommand parses the arguments of a command that runs go test
// (precog test, record, cover): its own flags and package patterns, in any
// order, before the go test flags that SplitArgs sets apart. An error
// names the command's help.
func ParseTestCommand(fs *flag.FlagSet, command string, args []string) (patterns, testArgs []string, err error) {
	args, testArgs = record.SplitArgs(args)
	patterns, err = ParseInterspersed(fs, args)
	if err != nil {
		return nil, nil, fmt.Errorf("%w (run 'precog help %s' for usage)", err, command)
	}
	return patterns, testArgs, nil
}

// ShellQuote quotes s for a POSIX shell if it needs it: for the commands
// precog prints for the user to run, such as a reproducer's.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// CommandLine returns the command line of precog's command name with
// args, quoted for a POSIX shell, as reports show it.
func CommandLine(name string, args []string) string {
	parts := []string{"precog", name}
	for _, a := range args {
		parts = append(parts, ShellQuote(a))
	}
	return strings.Join(parts, " ")
}

// SetFlags returns the flags set on fs's command line, as "-name=value",
// in fs's order: a command line's flags when its raw arguments are gone.
func SetFlags(fs *flag.FlagSet) []string {
	var out []string
	fs.Visit(func(f *flag.Flag) { out = append(out, "-"+f.Name+"="+f.Value.String()) })
	return out
}
