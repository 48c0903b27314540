package buildloop

import (
	"testing"
	"time"
)

func TestCountEach(t *testing.T) {
	for range 10 {
		e, _ := New("model.conf")
		go func() { e.Size() }()
		go func() { e.Size() }()
		time.Sleep(10 * time.Millisecond)
	}
}

func TestReload(t *testing.T) {
	e, _ := New("model.conf")
	go func() { e.Count() }()
	e.Reload()
}

func TestRegistered(t *testing.T) {
	go func() { CountAll() }()
	for range 3 {
		NewRegistered("model.conf")
	}
}
