// Package nilsafe follows a file whose field the follower's goroutine
// clears when it closes the file, while Tell and Path read the field on
// the caller's goroutine (Report; nxadm/tail's Tail.Tell in its tests). *os.File's methods but
// Name return os.ErrInvalid for a nil file: Tell's Seek is an error, not a
// crash; Path's Name dereferences the nil file and is reported.
package nilsafe

import (
	"io"
	"os"
)

type Follower struct {
	file *os.File
}

func Follow(name string) (*Follower, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	t := &Follower{file: f}
	go t.run()
	return t, nil
}

func (t *Follower) run() {
	buf := make([]byte, 512)
	for {
		if _, err := t.file.Read(buf); err != nil {
			break
		}
	}
	t.closeFile()
}

func (t *Follower) closeFile() {
	if t.file != nil {
		t.file.Close()
		t.file = nil
	}
}

// Tell returns the offset, or os.ErrInvalid once the file was closed.
func (t *Follower) Tell() (int64, error) {
	if t.file == nil {
		return 0, nil
	}
	return t.file.Seek(0, io.SeekCurrent)
}

// Path returns the file's name.
func (t *Follower) Path() string {
	if t.file == nil {
		return ""
	}
	return t.file.Name() // want `t.file may be nil when used to call \(\*File\).Name here: \(\*Follower\).closeFile stores nil to it concurrently`
}

// Report says where a new follower of the file stands.
func Report(name string) (string, int64) {
	t, err := Follow(name)
	if err != nil {
		return "", 0
	}
	off, _ := t.Tell()
	return t.Path(), off
}
