package cli_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/precog-dev/precog/cmd/precog/internal/cli"
)

// greet is a command for testing dispatch, help and errors.
func greet() *cli.Command {
	return &cli.Command{
		Name:    "greet",
		Args:    "[names]",
		Summary: "greet people",
		Doc:     "Greet says hello.\n\nEach name gets a line of its own.\n",
		Define: func(fs *flag.FlagSet) cli.Runner {
			loud := fs.Bool("loud", false, "shout the greeting")
			fs.String("o", "", "also write the greeting to `file` (\"-\" for stdout)")
			fs.Duration("wait", time.Minute, "wait up to `d` for an answer")
			return func(_ context.Context, env *cli.Env, args []string) (int, error) {
				switch {
				case len(args) == 0:
					return cli.ExitError, errors.New("nobody to greet\nreally nobody")
				case args[0] == "finding":
					return cli.ExitFindings, nil
				}
				msg := "hello " + strings.Join(args, " ")
				if *loud {
					msg = strings.ToUpper(msg)
				}
				env.Stdout.Write([]byte(msg + "\n"))
				return cli.ExitOK, nil
			}
		},
	}
}

func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errs bytes.Buffer
	code = cli.Main(t.Context(), &cli.Env{Stdout: &out, Stderr: &errs}, []*cli.Command{greet(), cli.VersionCommand()}, args)
	return out.String(), errs.String(), code
}

func TestDispatch(t *testing.T) {
	for _, tc := range []struct {
		args           []string
		stdout, stderr string
		code           int
	}{
		{[]string{"greet", "gopher"}, "hello gopher\n", "", 0},
		{[]string{"greet", "-loud", "gopher"}, "HELLO GOPHER\n", "", 0},
		{[]string{"greet", "finding"}, "", "", cli.ExitFindings},
		// Each line of an error gets the prefix. What the user typed
		// wrong (a flag, a command) is a usage error: status 2.
		{[]string{"greet"}, "", "precog: nobody to greet\nprecog: really nobody\n", 1},
		{[]string{"greet", "-quiet"}, "", "precog: flag provided but not defined: -quiet (run 'precog help greet' for usage)\n", cli.ExitUsage},
		// A file or dir flag followed by a package pattern or a flag is
		// refused, whether before the names or among them.
		{[]string{"greet", "-o", "./...", "gopher"}, "", "precog: -o takes a file, got the package pattern ./...: write -o FILE ./... (run 'precog help greet' for usage)\n", cli.ExitUsage},
		{[]string{"greet", "-o", "-loud", "gopher"}, "", "precog: -o takes a file, got the flag -loud: write -o FILE -loud (run 'precog help greet' for usage)\n", cli.ExitUsage},
		{[]string{"greet", "-o", "-", "gopher"}, "hello gopher\n", "", 0},
		{[]string{"greet", "-o", "a/.../b", "gopher"}, "", "precog: -o takes a file, got the package pattern a/.../b: write -o FILE a/.../b (run 'precog help greet' for usage)\n", cli.ExitUsage},
		{[]string{"greet", "-o", "x...y", "gopher"}, "hello gopher\n", "", 0},
		// A duration without its unit is told so, not "parse error".
		{[]string{"greet", "-wait", "15", "gopher"}, "", "precog: invalid value \"15\" for flag -wait: missing unit in duration \"15\" (a number and a unit, as in \"90s\" or \"15m\") (run 'precog help greet' for usage)\n", cli.ExitUsage},
		{[]string{"greet", "-wait", "15s", "gopher"}, "hello gopher\n", "", 0},
		{[]string{"wave"}, "", "precog: unknown command \"wave\" (run 'precog help' for a list)\n", cli.ExitUsage},
		{[]string{"help", "wave"}, "", "precog: unknown command \"wave\" (run 'precog help' for a list)\n", cli.ExitUsage},
		{[]string{"help", "greet", "version"}, "", "precog: help takes at most one command, got 2\n", cli.ExitUsage},
		{[]string{"version", "now"}, "", "precog: version takes no arguments\n", cli.ExitUsage},
	} {
		stdout, stderr, code := run(t, tc.args...)
		if stdout != tc.stdout || stderr != tc.stderr || code != tc.code {
			t.Errorf("precog %s:\ngot  exit %d, stdout %q, stderr %q\nwant exit %d, stdout %q, stderr %q",
				tc.args, code, stdout, stderr, tc.code, tc.stdout, tc.stderr)
		}
	}
}

// TestParseTestCommandPathFlags checks that a dir flag given after the
// package patterns, as "precog test ./... -ci -o X" has it, is refused too.
func TestParseTestCommandPathFlags(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.String("ci", "", "write the results `dir`")
	fs.String("o", "", "keep the traces in `dir`")
	_, _, err := cli.ParseTestCommand(fs, "test", []string{"./...", "-ci", "-o", "traces"})
	want := "-ci takes a directory, got the flag -o: write -ci DIR -o (run 'precog help test' for usage)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	patterns, _, err := cli.ParseTestCommand(fs, "test", []string{"./...", "-ci", "results", "-o", "traces"})
	if err != nil || len(patterns) != 1 || patterns[0] != "./..." {
		t.Errorf("got %q, %v; want [./...], no error", patterns, err)
	}
}

func TestHelp(t *testing.T) {
	overview, stderr, code := run(t, "help")
	if code != 0 || stderr != "" {
		t.Fatalf("precog help: exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{
		"\tgreet    greet people\n\tversion  print precog's version and build ID\n\thelp     show help for precog or one of its commands\n",
		"go vet -vettool=$(command -v precog) ./...",
	} {
		if !strings.Contains(overview, want) {
			t.Errorf("precog help does not contain %q:\n%s", want, overview)
		}
	}
	for _, args := range [][]string{{"-h"}, {"--help"}} {
		if out, _, code := run(t, args...); out != overview || code != 0 {
			t.Errorf("precog %s differs from precog help (exit %d):\n%s", args, code, out)
		}
	}
	// With no command, the overview goes to stderr and the status is a
	// usage error's, as the go command's.
	if out, errs, code := run(t); out != "" || errs != overview || code != cli.ExitUsage {
		t.Errorf("precog: exit %d, stdout %q, stderr:\n%s", code, out, errs)
	}

	// help NAME has the whole doc; NAME -h only its first paragraph, and
	// says where the rest is.
	flags := "\nFlags:\n  -loud\n    \tshout the greeting\n  -o file\n    \talso write the greeting to file (\"-\" for stdout)\n  -wait d\n    \twait up to d for an answer (default 1m0s)\n"
	full := "usage: precog greet [flags] [names]\n\nGreet says hello.\n\nEach name gets a line of its own.\n" + flags
	short := "usage: precog greet [flags] [names]\n\nGreet says hello.\n\nRun 'precog help greet' for the whole description: what it reports, its output\nand its exit statuses.\n" + flags
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"help", "greet"}, full},
		{[]string{"greet", "-h"}, short},
		{[]string{"greet", "-help"}, short},
	} {
		if out, errs, code := run(t, tc.args...); out != tc.want || errs != "" || code != 0 {
			t.Errorf("precog %s: exit %d, stderr %q, stdout:\n%s\nwant:\n%s", tc.args, code, errs, out, tc.want)
		}
	}
	// A command without flags does not mention them.
	if out, _, _ := run(t, "help", "version"); !strings.HasPrefix(out, "usage: precog version\n\n") || strings.Contains(out, "Flags:") {
		t.Errorf("precog help version:\n%s", out)
	}
}

func TestVersion(t *testing.T) {
	version, stderr, code := run(t, "version")
	if code != 0 || stderr != "" {
		t.Fatalf("precog version: exit %d, stderr %q", code, stderr)
	}
	if !regexp.MustCompile(`^precog version \S+ go\S+ buildID=[0-9a-f]{64}\n$`).MatchString(version) {
		t.Errorf("precog version = %q", version)
	}
	if full, _, _ := run(t, "-V=full"); full != version {
		t.Errorf("precog -V=full = %q, want the same as precog version, %q", full, version)
	}
}

func TestIsVetTool(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"vet", "./..."}, false},
		{[]string{"vet", "x.cfg"}, false}, // a package pattern for precog vet
		{[]string{"help"}, false},
		{[]string{"-V=full"}, false}, // answered by Main
		{[]string{"-h"}, false},
		{[]string{"-flags"}, true},
		{[]string{"/tmp/go-build123/b001/vet.cfg"}, true},
		{[]string{"-json", "-connull=false", "/tmp/go-build123/b001/vet.cfg"}, true},
	} {
		if got := cli.IsVetTool(tc.args); got != tc.want {
			t.Errorf("IsVetTool(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}
