// Package analyzerutil holds small helpers shared by precog's analyzers:
// extracting an analyzer's Doc from its doc.go, and turning a panic inside
// a pass into one "internal error" diagnostic instead of a crashed build.
package analyzerutil
