// Package syncmapsess is MySQL-2 (ConMem Tables VII-IX, Con-NULL) across
// two calls of a sync.Map: User checks that the session is there, then
// loads it again and asserts its type, while Logout deletes it. Every
// operation is sync.Map's, so there is no data race; the check and the use
// are two Loads, and the Delete can come between them.
//
// Crashing interleaving:
//
//	User's goroutine                      Logout's goroutine
//	s.m.Load(id)       (found)
//	                                      s.m.Delete(id)
//	v, _ := s.m.Load(id)                  (nil, false)
//	v.(*Session).user
//	panic: interface conversion: interface {} is nil, not *syncmapsess.Session
//
// The test's normal schedule hides it: Logout runs 20 milliseconds after
// the reader started, which has long returned.
package syncmapsess

import "sync"

// Session is a logged-in user's session.
type Session struct{ user string }

// Store holds the sessions by id.
type Store struct{ m sync.Map }

// Login stores a session.
func (s *Store) Login(id, user string) { s.m.Store(id, &Session{user: user}) }

// Logout deletes a session.
func (s *Store) Logout(id string) { s.m.Delete(id) }

// User is WRONG: it loads the session twice, once to check that it is
// there and once to use it.
func (s *Store) User(id string) string {
	if _, ok := s.m.Load(id); !ok {
		return ""
	}
	v, _ := s.m.Load(id)
	return v.(*Session).user
}
