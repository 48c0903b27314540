package p

import (
	"bytes"
	"os/exec"
	"strings"
)

type job struct {
	cmd *exec.Cmd
	out bytes.Buffer
}

func start(j *job) error {
	j.cmd.Stdout = &j.out
	return j.cmd.Start()
}

func progress(j *job) string { return j.out.String() }

func run(name string) (string, string, error) {
	var out bytes.Buffer
	var errb strings.Builder
	cmd := exec.Command(name)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	out.WriteString("!")
	errb.Reset()
	return out.String(), errb.String(), err
}

func output(name string, b *bytes.Buffer) ([]byte, error) {
	cmd := &exec.Cmd{Path: name, Stderr: b}
	defer cmd.Wait()
	b.Grow(b.Len())
	return cmd.Output()
}
