// Package analyzerutil holds small helpers shared by precog's analyzers and
// their drivers: extracting an analyzer's Doc from its doc.go, turning a
// panic inside a pass into one "internal error" diagnostic instead of a
// crashed build, and the Sites result through which a check names the
// sites of its diagnostics in the finding catalog's roles.
package analyzerutil
