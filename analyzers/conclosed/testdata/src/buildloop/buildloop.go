// Package buildloop builds an enforcer through a chain of initializers
// that fill its role map, one of which an exported Reload calls again on
// a published enforcer (casbin's NewEnforcer, InitWithFile, initialize
// and initRmMap). A test that makes a new enforcer in each turn of a loop
// and starts goroutines that read it writes the new enforcer's map while
// the last turn's goroutines read theirs: one allocation site, two
// objects, and the new one is reachable from the test's goroutine alone
// until the constructor returns it. Not reported. A test that reloads an
// enforcer its goroutines read, and a constructor that registers its
// enforcer before filling it, are.
package buildloop

type Enforcer struct {
	model map[string]string
	roles map[string]int
}

// New builds an enforcer for path.
func New(path string) (*Enforcer, error) {
	e := &Enforcer{}
	if err := e.InitWithFile(path); err != nil {
		return nil, err
	}
	return e, nil
}

// InitWithFile loads the model at path.
func (e *Enforcer) InitWithFile(path string) error {
	e.model = map[string]string{"g": path}
	e.initialize()
	return nil
}

func (e *Enforcer) initialize() {
	e.roles = map[string]int{}
	e.initRoles()
}

func (e *Enforcer) initRoles() {
	for k := range e.model {
		e.roles[k] = len(k)
	}
}

// Reload fills the roles again.
func (e *Enforcer) Reload() { e.initRoles() }

// Size counts the roles.
func (e *Enforcer) Size() int {
	n := 0
	for range e.roles {
		n++
	}
	return n
}

// Count counts the roles.
func (e *Enforcer) Count() int {
	n := 0
	for range e.roles { // want `e.roles is iterated here while \(\*Enforcer\).initRoles may write it concurrently`
		n++
	}
	return n
}

var registry []*Enforcer

// NewRegistered registers its enforcer before it fills it.
func NewRegistered(path string) *Enforcer {
	e := &Enforcer{}
	registry = append(registry, e)
	e.initWithPath(path)
	return e
}

func (e *Enforcer) initWithPath(path string) {
	e.model = map[string]string{"g": path}
	e.roles = map[string]int{}
	for k := range e.model {
		e.roles[k] = 1
	}
}

// CountAll counts the roles of every registered enforcer.
func CountAll() int {
	n := 0
	for _, e := range registry {
		for range e.roles { // want `e.roles is iterated here while \(\*Enforcer\).initWithPath may write it concurrently`
			n++
		}
	}
	return n
}
