package testcaller

import "testing"

func TestTree(t *testing.T) {
	var n node
	n.addChild("a")
	if n.findChild("a") == nil {
		t.Fatal("not found")
	}
	l := leaf{children: map[string]int{}}
	l.addChild("a")
	if l.findChild("a") != 1 {
		t.Fatal("not found")
	}
}

// addUnlocked is a helper no test calls any more: it never runs, so its
// call without the lock does not weaken the locks held on the package's
// goroutines either.
func addUnlocked(n *node, k string) { n.addChild(k) }
