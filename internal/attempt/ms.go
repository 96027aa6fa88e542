package attempt

import "time"

// MS is a duration in milliseconds to the microsecond, as the JSON forms
// give times.
func MS(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
