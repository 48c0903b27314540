package trace

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// textHeader starts the header line of the text form.
const textHeader = "precog trace v1"

// String returns the header line of the text form.
func (h Header) String() string {
	return fmt.Sprintf("%s test=%s package=%s start=%s pid=%d", textHeader,
		strconv.Quote(h.Test), strconv.Quote(h.Package), h.Start.UTC().Format(time.RFC3339Nano), h.PID)
}

// String returns the event's line in the text form, without a newline.
func (e Event) String() string {
	return string(e.AppendFormat(nil, nil))
}

// AppendFormat appends the event's line in the text form to b, without a
// newline. If sites is not nil, each site it knows is followed by its
// position in parentheses.
func (e Event) AppendFormat(b []byte, sites *SiteTable) []byte {
	b = strconv.AppendUint(b, e.Seq, 10)
	if !e.Kind.IsSync() || e.Sub != 0 { // an atomic load's Sub (see "Order")
		b = append(b, '.')
		b = strconv.AppendUint(b, e.Sub, 10)
	}
	b = append(b, " g="...)
	b = strconv.AppendUint(b, e.Goroutine, 10)
	b = append(b, ' ')
	b = append(b, e.Kind.String()...)
	if e.Kind == evNone || e.Kind >= numKinds {
		return b
	}
	for _, f := range kinds[e.Kind].fields {
		if f == fElem && e.Peer == 0 {
			continue // unknown: optional in the text form
		}
		b = append(b, ' ')
		b = append(b, fieldKeys[f]...)
		b = append(b, '=')
		switch f {
		case fSite:
			b = strconv.AppendUint(b, uint64(e.Site), 10)
			if s, ok := sites.Lookup(e.Site); ok {
				b = append(b, '(')
				b = append(b, s.Pos()...)
				b = append(b, ')')
			}
		case fAddr:
			b = append(b, "0x"...)
			b = strconv.AppendUint(b, e.Addr, 16)
		case fValue, fCap, fEpoch, fSize:
			b = strconv.AppendUint(b, e.Value, 10)
		case fOK:
			b = strconv.AppendBool(b, e.Value != 0)
		case fOutcome:
			b = append(b, Outcome(e.Value).String()...)
		case fDelta, fCase:
			b = strconv.AppendInt(b, e.Arg, 10)
		case fParent:
			if e.Peer == NoParent {
				b = append(b, "none"...)
			} else {
				b = strconv.AppendUint(b, e.Peer, 10)
			}
		case fChild, fElem:
			b = strconv.AppendUint(b, e.Peer, 10)
		case fName:
			b = strconv.AppendQuote(b, e.Name)
		}
	}
	return b
}

// ParseText parses the text form: a header line, then one event per line.
// Blank lines and lines starting with # are skipped. Within a line, the
// fields after the kind may come in any order, but every field of the kind
// must be there, except elem, which is 0 (unknown) if missing (and left
// out when 0). The events keep the order of the lines, so the text of a
// trace's events in the global order parses back into the same Trace. A
// text trace is whole: its State is Ended.
func ParseText(r io.Reader) (*Trace, error) {
	s := bufio.NewScanner(r)
	s.Buffer(nil, 8*MaxStringLen) // room for a quoted name of MaxStringLen bytes
	t := &Trace{State: Ended}
	header := false
	for n := 1; s.Scan(); n++ {
		line := strings.TrimSpace(s.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var err error
		if !header {
			t.Header, err = parseHeader(line)
			header = true
		} else {
			var ev Event
			ev, err = parseEvent(line)
			t.Events = append(t.Events, ev)
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	if !header {
		return nil, fmt.Errorf("no header line %q", textHeader)
	}
	return t, nil
}

func parseHeader(line string) (Header, error) {
	var h Header
	rest, ok := strings.CutPrefix(line, textHeader+" ")
	if !ok {
		return h, fmt.Errorf("header does not start with %q", textHeader)
	}
	toks, err := tokens(rest)
	if err != nil {
		return h, err
	}
	seen := make(map[string]bool)
	for _, tok := range toks {
		key, val, _ := strings.Cut(tok, "=")
		if seen[key] {
			return h, fmt.Errorf("%s twice", key)
		}
		seen[key] = true
		switch key {
		case "test":
			h.Test, err = strconv.Unquote(val)
		case "package":
			h.Package, err = strconv.Unquote(val)
		case "start":
			h.Start, err = time.Parse(time.RFC3339Nano, val)
		case "pid":
			h.PID, err = strconv.Atoi(val)
		default:
			return h, fmt.Errorf("unknown header field %q", key)
		}
		if err != nil {
			return h, fmt.Errorf("bad %s: %w", key, err)
		}
	}
	if len(seen) != 4 {
		return h, fmt.Errorf("header needs test, package, start and pid")
	}
	return h, nil
}

func parseEvent(line string) (Event, error) {
	var ev Event
	toks, err := tokens(line)
	if err != nil {
		return ev, err
	}
	if len(toks) < 3 {
		return ev, fmt.Errorf("event needs a seq, a goroutine and a kind")
	}
	seq, sub, dotted := strings.Cut(toks[0], ".")
	if ev.Seq, err = strconv.ParseUint(seq, 10, 64); err != nil {
		return ev, fmt.Errorf("bad seq: %w", err)
	}
	if dotted {
		if ev.Sub, err = strconv.ParseUint(sub, 10, 64); err != nil {
			return ev, fmt.Errorf("bad seq: %w", err)
		}
	}
	g, ok := strings.CutPrefix(toks[1], "g=")
	if !ok {
		return ev, fmt.Errorf("no goroutine (g=N) after the seq")
	}
	if ev.Goroutine, err = strconv.ParseUint(g, 10, 64); err != nil {
		return ev, fmt.Errorf("bad goroutine: %w", err)
	}
	ev.Kind = kindNamed(toks[2])
	if ev.Kind == evNone {
		return ev, fmt.Errorf("unknown event kind %q", toks[2])
	}
	if dotted == ev.Kind.IsSync() && (!dotted || ev.Kind != EvAtomicLoad) {
		if dotted {
			return ev, fmt.Errorf("%s is a sync event, its seq has no .Sub", ev.Kind)
		}
		return ev, fmt.Errorf("%s has no seq of its own, its seq must be Seq.Sub", ev.Kind)
	}
	fields := kinds[ev.Kind].fields
	seen := make([]bool, len(fields))
	for _, tok := range toks[3:] {
		key, val, _ := strings.Cut(tok, "=")
		i := 0
		for i < len(fields) && fieldKeys[fields[i]] != key {
			i++
		}
		switch {
		case i == len(fields):
			return ev, fmt.Errorf("%s has no field %q", ev.Kind, key)
		case seen[i]:
			return ev, fmt.Errorf("%s twice", key)
		}
		seen[i] = true
		if err := setField(&ev, fields[i], val); err != nil {
			return ev, fmt.Errorf("bad %s: %w", key, err)
		}
	}
	for i, f := range fields {
		if !seen[i] && f != fElem {
			return ev, fmt.Errorf("%s needs field %s", ev.Kind, fieldKeys[f])
		}
	}
	return ev, nil
}

func setField(ev *Event, f field, val string) error {
	var err error
	switch f {
	case fSite:
		if i := strings.IndexByte(val, '('); i >= 0 && strings.HasSuffix(val, ")") {
			val = val[:i] // the position from a site table
		}
		var v uint64
		v, err = strconv.ParseUint(val, 10, 32)
		ev.Site = uint32(v)
	case fAddr:
		hex, ok := strings.CutPrefix(val, "0x")
		if !ok {
			return fmt.Errorf("%q is not hexadecimal with 0x", val)
		}
		ev.Addr, err = strconv.ParseUint(hex, 16, 64)
	case fValue, fCap, fEpoch, fSize:
		ev.Value, err = strconv.ParseUint(val, 10, 64)
	case fOK:
		var ok bool
		ok, err = strconv.ParseBool(val)
		if ok {
			ev.Value = 1
		}
	case fOutcome:
		o := Pass
		for o < numOutcomes && outcomeNames[o] != val {
			o++
		}
		if o == numOutcomes {
			return fmt.Errorf("%q is not pass, fail, panic or skip", val)
		}
		ev.Value = uint64(o)
	case fDelta:
		ev.Arg, err = strconv.ParseInt(val, 10, 64)
	case fCase:
		if ev.Arg, err = strconv.ParseInt(val, 10, 64); err == nil && ev.Arg < -1 {
			return fmt.Errorf("%d is below -1", ev.Arg)
		}
	case fParent:
		if val == "none" {
			ev.Peer = NoParent
		} else {
			ev.Peer, err = strconv.ParseUint(val, 10, 64)
		}
	case fChild:
		ev.Peer, err = strconv.ParseUint(val, 10, 64)
	case fElem:
		ev.Peer, err = strconv.ParseUint(val, 10, 32)
	case fName:
		ev.Name, err = strconv.Unquote(val)
	}
	return err
}

func kindNamed(name string) Kind {
	for k := evNone + 1; k < numKinds; k++ {
		if kinds[k].name == name {
			return k
		}
	}
	return evNone
}

// tokens splits a line at spaces, keeping whole a Go-quoted string and a
// parenthesized site position, either of which may hold spaces.
func tokens(line string) ([]string, error) {
	var toks []string
	for line = strings.TrimLeft(line, " \t"); line != ""; line = strings.TrimLeft(line, " \t") {
		i := strings.IndexAny(line, " \t\"(")
		for i >= 0 && (line[i] == '"' || line[i] == '(') {
			if line[i] == '"' {
				q, err := strconv.QuotedPrefix(line[i:])
				if err != nil {
					return nil, fmt.Errorf("bad quoted string in %q", line)
				}
				i += len(q)
			} else {
				j := strings.IndexByte(line[i:], ')')
				if j < 0 {
					return nil, fmt.Errorf("no ) after ( in %q", line)
				}
				i += j + 1
			}
			if j := strings.IndexAny(line[i:], " \t\"("); j >= 0 {
				i += j
			} else {
				i = -1
			}
		}
		if i < 0 {
			i = len(line)
		}
		toks = append(toks, line[:i])
		line = line[i:]
	}
	return toks, nil
}
