package testhook

import "testing"

func TestHook(t *testing.T) {
	hookQuery = func() {}
	defer func() { hookQuery = nil }()
	db := &DB{}
	db.Query()
}

func TestQuery(t *testing.T) {
	db := &DB{}
	db.Query()
}
