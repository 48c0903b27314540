package ctorstate

import "testing"

func TestRedial(t *testing.T) { Redial() }
