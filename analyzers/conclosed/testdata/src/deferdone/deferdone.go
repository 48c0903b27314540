// Package deferdone: goroutines of a test that call Done in a function
// literal they defer. What they log before the deferred call runs before
// Done, so before the test's Wait returns: silent. What the deferred
// function logs after Done can run after the test returned: reported.
package deferdone
