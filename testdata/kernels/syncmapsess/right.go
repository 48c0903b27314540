package syncmapsess

// UserOnce is RIGHT: one Load, its ok checked before the value is used.
func (s *Store) UserOnce(id string) string {
	v, ok := s.m.Load(id)
	if !ok {
		return ""
	}
	return v.(*Session).user
}
