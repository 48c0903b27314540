package poolreuse

// Write writes the entry to its cores and then puts it back
// (CheckedEntry.Write): the old owner's last use is before its Put, and
// so before the next owner's Get and reset.
func (ce *Entry) Write() {
	for i := range ce.cores {
		ce.cores[i].Written++
	}
	entries.Put(ce)
}
