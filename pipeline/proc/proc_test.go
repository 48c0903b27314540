//go:build unix

package proc

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStopGroup cancels a command whose shell and child both ignore
// SIGINT: the whole group must be gone, killed after the grace period,
// and Wait must return.
func TestStopGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cmd := Command(ctx, "sh", "-c", `trap "" INT; sleep 60 & echo $!; wait`)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cancel()
	cmd.Wait()
	if d := time.Since(start); d > Grace+2*time.Second {
		t.Errorf("Wait returned %v after the cancel", d)
	}
	for deadline := time.Now().Add(Grace + 5*time.Second); alive(child); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(child, syscall.SIGKILL)
			t.Fatalf("the shell's child %d outlived the stop", child)
		}
	}
}

// alive reports whether process pid runs: it exists and is not a zombie
// (a container's init may not reap the orphans it adopts).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil // no /proc: a zombie counts as alive
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}
