//go:build !linux

package attempt

import "context"

// RunLanes says false: event loops are made on Linux only (lanes_linux.go),
// and a goroutine per lane makes the run elsewhere.
func (d *Deliverer) RunLanes(ctx context.Context, run Lanes) bool { return false }
