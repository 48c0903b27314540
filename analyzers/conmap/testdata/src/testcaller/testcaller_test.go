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
