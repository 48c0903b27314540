// Package guards is TestGuardLoads's input: each store's line names, after
// "guards:", the marks of the lines whose loads guard it, a mark with "!"
// for a load that switches; a line marked "reads:" names those of its
// load.
package guards

type list struct {
	count int
	on    bool
	n     int
	back  *int
	front *int
}

func (l *list) push(x *int) {
	if l.count == 0 { // load:count
		l.back = x // guards:count
	} else {
		l.front = x // guards:count
	}
	l.n = 1   // guards:
	l.count++ // guards:
}

func (l *list) pop() {
	l.count--         // guards:
	if l.count == 0 { // load:count2
		l.front, l.back = nil, nil // guards:count2
	}
}

func (l *list) loop(x *int) {
	for i := 0; i < 3; i++ {
		if l.on { // load:on
			l.back = x // guards:on!
		}
		l.n = i // guards:
	}
}

func (l *list) both(x *int) {
	if l.on && // load:on2
		l.count > 0 { // load:count3
		l.back = x // guards:count3 on2!
	}
}

func (l *list) early(x *int) {
	if l.on { // load:on3
		return
	}
	l.back = x // guards:on3!
}

func (l *list) drain() {
	for l.count > 0 { // load:count4
		l.count-- // guards:count4
	}
	l.back = nil // guards:count4
}

func (l *list) phi(x *int) {
	on := l.on // load:on5
	if x == nil {
		on = true
	}
	if on {
		l.back = x // guards:
	}
}

func (l *list) shutdown() int {
	if !l.on { // load:on6
		return 0
	}
	if l.front == nil { // load:front
		return 1
	}
	return l.n // reads:front! on6!
}

func (l *list) pick(x *int) int {
	if l.count > 1 { // load:count5
		return l.n // reads:count5
	}
	return 0
}
