package othertestlit

import "testing"

func TestBlocked(t *testing.T) {
	started := make(chan struct{})
	m := Model{Step: func(key string) bool {
		switch key {
		case "blocked":
			close(started)
			return false
		case "illegal":
			<-started
		}
		return false
	}}
	if Check(m, [][]string{{"blocked"}, {"illegal"}}) {
		t.Fatal("want a failure")
	}
}

func TestReplay(t *testing.T) {
	m := Model{Step: func(key string) bool { return key != "" }}
	if !Replay(m, []string{"a", "b"}) {
		t.Fatal("want success")
	}
}

func TestCheckThenReplay(t *testing.T) {
	done := make(chan struct{})
	m := Model{Step: func(key string) bool {
		if key == "last" {
			close(done) // want `close of closed channel: done may also be closed`
		}
		return false
	}}
	Check(m, [][]string{{"last"}, {"other"}})
	Replay(m, []string{"last"})
}
