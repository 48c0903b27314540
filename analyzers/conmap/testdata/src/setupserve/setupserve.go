// Package setupserve: a handler's map filled by the function that makes
// the handler, before it registers the handler's method value (or a
// literal that captures it) with HandleFunc: no request reaches a handler
// before its registration, and every call makes a handler of its own, so
// one test's fill and another test's requests touch two maps. Silent,
// with two tests calling the function. Filled after the registration, or
// in a handler the caller passes (one package-level handler for both
// tests), it is reported.
package setupserve
