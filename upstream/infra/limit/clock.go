package limit

import "time"

// Clock is the time source of an Admission: the real one in the server, a
// controllable one in tests, so that queueing decisions are tested without
// sleeping or asserting timings.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has passed; stop
	// cancels the call and reports whether it did so before f ran.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// systemClock is the wall clock.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}
