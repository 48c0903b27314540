// Package constants is a negative control: goroutines share only values that
// never change after package initialization, and index only with constants
// or with values bounded by a constant length. No check may report anything
// here.
//
// Why each shape is safe:
//   - con-index: hexDigits and h.buckets are arrays, whose length is a
//     constant; every index is a constant, a byte shifted or masked below 16,
//     or a bucket number clamped to numBuckets-1. header is sliced with
//     the constant headerLen, and buffers are locals of that size.
//   - con-null: std and defaultHeader are pointers set by their
//     declarations and never assigned again; no nil is stored anywhere.
//   - con-uninit: package-level variables are initialized before any
//     goroutine of the package starts.
//   - con-map: statusText is only read.
package constants

import (
	"sync"
	"sync/atomic"
	"time"
)

const (
	numBuckets = 8
	headerLen  = 4
	header     = "PCG1-extra"
)

var hexDigits = [16]byte{'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'}

var statusText = map[int]string{200: "OK", 404: "Not Found", 500: "Internal Server Error"}

type frameHeader struct {
	magic   string
	version int
}

var defaultHeader = &frameHeader{magic: header[:headerLen], version: 1}

// Histogram counts durations in power-of-two millisecond buckets.
type Histogram struct {
	buckets [numBuckets]atomic.Int64
}

var std = &Histogram{}

func bucket(d time.Duration) int {
	b := 0
	for ms := d.Milliseconds(); ms > 1 && b < numBuckets-1; ms >>= 1 {
		b++
	}
	return b
}

// Observe records one duration.
func (h *Histogram) Observe(d time.Duration) {
	h.buckets[bucket(d)].Add(1)
}

// Slow returns the count in the last bucket.
func (h *Histogram) Slow() int64 { return h.buckets[numBuckets-1].Load() }

func encodeFrame(status int, payload []byte) []byte {
	out := make([]byte, headerLen, headerLen+2*len(payload)+32)
	copy(out[:headerLen], defaultHeader.magic)
	for _, b := range payload {
		out = append(out, hexDigits[b>>4], hexDigits[b&0x0f])
	}
	return append(out, statusText[status]...)
}

// Encode encodes each payload on its own goroutine and records the time.
func Encode(payloads [][]byte) [][]byte {
	out := make([][]byte, len(payloads))
	var wg sync.WaitGroup
	for i, p := range payloads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			out[i] = encodeFrame(200, p)
			std.Observe(time.Since(start))
		}()
	}
	wg.Wait()
	return out
}
