package attempt

import "context"

// Buf is the body buffer a load run's worker keeps from one delivery to
// the next (see bodyBuf); nil until its first delivery.
type Buf = bodyBuf

// DeliverWith is Deliver for a run's worker: the body of a request from a
// template is written into *bb's buffer (see deliver), and the Result is
// *bb's own, valid until the worker's next delivery.
func (d *Deliverer) DeliverWith(ctx context.Context, req *Request, bb **Buf) *Result {
	return d.deliver(ctx, req, bb)
}

// Release lets go of a buffer the worker no longer uses.
func (bb *bodyBuf) Release() { bb.release() }
