package session

// CloseIfIdle lets the external tests close a Bolt's database as its idle
// timer would, without waiting for it.
func CloseIfIdle(s *Bolt) { s.closeIfIdle() }
