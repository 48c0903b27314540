// Package nilrecv knows the methods of the standard library that take a
// nil pointer receiver without dereferencing it, for precog vet's con-null
// (analyzers/internal/concurrent's Derefs) and precog test's (the
// instrumenter's deref uses) alike: calling one on a pointer that another
// goroutine set to nil is an error, not a crash.
package nilrecv

// methods are by types.Func.FullName. Each of *os.File's methods but Name
// returns os.ErrInvalid for a nil file (checkValid), so a file field that
// another goroutine clears after Close, read again and used (nxadm/tail's
// Tell: tail.file.Seek while the tailing goroutine's closeFile stores
// nil), fails the call.
var methods = map[string]bool{}

func init() {
	for _, m := range []string{"Read", "ReadAt", "ReadFrom", "ReadDir", "Readdir", "Readdirnames", "Write",
		"WriteAt", "WriteString", "WriteTo", "Seek", "Stat", "Sync", "Truncate", "Close", "Chdir", "Chmod",
		"Chown", "Fd", "SetDeadline", "SetReadDeadline", "SetWriteDeadline", "SyscallConn"} {
		methods["(*os.File)."+m] = true
	}
}

// OK reports whether the method named by its types.Func.FullName accepts
// a nil pointer receiver without a panic.
func OK(name string) bool {
	return methods[name]
}
