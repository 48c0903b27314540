package ctorpublished

import "testing"

func TestGlobal(t *testing.T) { RaceGlobal() }

func TestWatched(t *testing.T) { NewWatched() }

func TestEscaped(t *testing.T) { RaceEscaped() }

func TestPooled(t *testing.T) { RacePooled() }

func TestReassigned(t *testing.T) { RaceReassigned() }

func TestSwapped(t *testing.T) { RaceSwapped() }

func TestHanded(t *testing.T) { RaceHanded() }
