// Package require is a stand-in for testify's require, with its failing
// functions as testify writes them: assert's Fail reports and returns
// false, then t.FailNow ends the test's goroutine. Error returns when
// err is not nil.
package require

// TestingT is what testify asks of a test.
type TestingT interface {
	Errorf(format string, args ...interface{})
	FailNow()
}

func assertFail(t TestingT, msg string) bool {
	t.Errorf("%s", msg)
	return false
}

// Fail reports a failure and stops the test.
func Fail(t TestingT, msg string, msgAndArgs ...interface{}) {
	if assertFail(t, msg) {
		return
	}
	t.FailNow()
}

// FailNow reports a failure and stops the test.
func FailNow(t TestingT, msg string, msgAndArgs ...interface{}) {
	if assertFail(t, msg) {
		return
	}
	t.FailNow()
}

// Error stops the test when err is nil.
func Error(t TestingT, err error, msgAndArgs ...interface{}) {
	if err != nil {
		return
	}
	t.FailNow()
}

// Assertions holds a test for the methods.
type Assertions struct{ t TestingT }

// New returns Assertions for t.
func New(t TestingT) *Assertions { return &Assertions{t: t} }

// FailNow reports a failure and stops the test.
func (a *Assertions) FailNow(msg string, msgAndArgs ...interface{}) {
	FailNow(a.t, msg, msgAndArgs...)
}
