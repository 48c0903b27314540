// Package fieldrecv: the goroutines one call starts in a loop on a
// receiver read through fields of the spawner's (`go s.h.Handle(b)`) all
// get the same handler, since nothing in the spawner writes those fields:
// Handle writes its map without a lock (reported; silent before, when a
// receiver loaded in the loop counted as a new object for each start).
// The same through a variable of the loop's body that the goroutine
// captures (Copied: reported). Silent beside them: a handler made and
// stored in the field before each start (Fresh), one handler per element
// of a slice (PerElem), a handler read through a field of each element
// (PerItem), and one made for each goroutine's variable (MadeEach).
package fieldrecv

type Handler struct{ seen map[string]int }

func (h *Handler) Handle(b string) {
	h.seen[b]++ // want `concurrent map read and map write: h.seen is written here and read by \(\*Handler\).Handle with no common lock`
}

type Server struct{ h *Handler }

type Front struct{ srv *Server }

func (f *Front) Serve(in []string) {
	for _, b := range in {
		go f.srv.h.Handle(b)
	}
}

type FreshHandler struct{ seen map[string]int }

func (h *FreshHandler) Handle(b string) { h.seen[b]++ }

type Fresh struct{ h *FreshHandler }

func (s *Fresh) Serve(in []string) {
	for _, b := range in {
		s.h = &FreshHandler{seen: map[string]int{}}
		go s.h.Handle(b)
	}
}

type ElemHandler struct{ seen map[string]int }

func (h *ElemHandler) Handle(b string) { h.seen[b]++ }

type PerElem struct{ hs []*ElemHandler }

func (s *PerElem) Serve(b string) {
	for i := range s.hs {
		go s.hs[i].Handle(b)
	}
}

type ItemHandler struct{ seen map[string]int }

func (h *ItemHandler) Handle(b string) { h.seen[b]++ }

type item struct{ h *ItemHandler }

func ServeItems(items []*item, b string) {
	for _, it := range items {
		go it.h.Handle(b)
	}
}

// Copied: the handler copied to a variable of the loop's body that the
// goroutine captures: each has its own variable, holding one handler
// (reported).
type CopiedHandler struct{ seen map[string]int }

func (h *CopiedHandler) Handle(b string) {
	h.seen[b]++ // want `concurrent map read and map write: h.seen is written here and read by \(\*CopiedHandler\).Handle with no common lock`
}

type Copied struct{ h *CopiedHandler }

func (s *Copied) Serve(in []string) {
	for _, b := range in {
		h := s.h
		go func() { h.Handle(b) }()
	}
}

// MadeEach: a handler made for each goroutine's variable (silent).
type MadeHandler struct{ seen map[string]int }

func (h *MadeHandler) Handle(b string) { h.seen[b]++ }

func ServeMade(in []string) {
	for _, b := range in {
		h := &MadeHandler{seen: map[string]int{}}
		go func() { h.Handle(b) }()
	}
}
