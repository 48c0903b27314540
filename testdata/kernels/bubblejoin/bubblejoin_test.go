//go:build go1.25

package bubblejoin

import (
	"testing"
	"testing/synctest"
)

// TestAnnounce sets the configuration, starts the server in a bubble
// without waiting for its announcer (synctest.Test does), and clears the
// configuration after Test returned.
func TestAnnounce(t *testing.T) {
	s := &Server{}
	s.Cfg = &Config{Name: "a"} // S0: before synctest.Test
	synctest.Test(t, func(*testing.T) {
		s.Start(func(name string) { t.Logf("announced %s", name) })
	})
	s.Cfg = nil // S1: after Test returned, which waited for the announcer
}
