package shim

import "reflect"

// ReflectSelect is reflect.Select(cases). It records the case that ran as
// an instrumented select records it, at the site of a select of one case
// of that kind: recv's for a receive (its Cases "r"), send's for a send
// ("s"), dflt's for the default, so that hb pairs a receive in
// reflect.Select with its send and a send with its receive as for a
// select statement (emitter's listener waits in reflect.Select for
// Flush's stop). A forced run does not steer which case runs: the plan
// for the site is consulted as a select's, and the select runs as the
// channels allow.
func ReflectSelect(recv, send, dflt uint32, cases []reflect.SelectCase) (chosen int, v reflect.Value, ok bool) {
	if !enabled {
		return reflect.Select(cases)
	}
	selectPlanFor(recv)
	chosen, v, ok = reflect.Select(cases)
	switch c := cases[chosen]; c.Dir {
	case reflect.SelectRecv:
		selected(recv, 0, c.Chan.UnsafePointer(), b2u(ok), elemOfValue(c.Chan, v, ok))
	case reflect.SelectSend:
		selected(send, 0, c.Chan.UnsafePointer(), 1, elemOfValue(c.Chan, c.Send, true))
	default:
		selected(dflt, -1, nil, 0, 0)
	}
	return chosen, v, ok
}

// elemOfValue is ElemOf for v as an element of channel ch; 0, unknown,
// when none was received, or when v is not of ch's element type (a
// concrete value sent on a channel of an interface type, which the send
// boxes anew: its receiver sees a data word that is not known here).
func elemOfValue(ch, v reflect.Value, ok bool) uint32 {
	t := ch.Type().Elem()
	if !ok || !v.IsValid() || v.Type() != t {
		return 0
	}
	p := reflect.New(t)
	p.Elem().Set(v)
	return elemAt(p.UnsafePointer(), t.Size())
}
