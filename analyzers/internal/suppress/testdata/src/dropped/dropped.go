// Package dropped is reported on once its budget has run out (TestDroppedNoted).
package dropped
