package sendout

import (
	"testing"
	"time"

	"github.com/whsim/whsim/internal/attempt"
)

// The run's last line says what passed on every call that timed out in
// one group, with the range of what differs from call to call: calls
// whose bodies were never taken, differing only in the bytes written,
// were said by the first one's count, as if every call's.
func TestSilencesWords(t *testing.T) {
	t.Parallel()
	timeout := func(s *attempt.Silence) attempt.Attempt {
		return attempt.Attempt{Kind: attempt.KindTimeout, Silent: s}
	}
	tests := []struct {
		name  string
		calls []attempt.Attempt
		want  string
	}{
		{"bodies never taken, bytes written apart", []attempt.Attempt{
			timeout(&attempt.Silence{Wrote: 0, Body: 262144, Waited: time.Second}),
			timeout(&attempt.Silence{Wrote: 65536, Body: 262144, Waited: time.Second}),
			timeout(&attempt.Silence{Wrote: 2048, Body: 262144, Waited: time.Second})},
			"the body was never taken: the write of the call did not complete within the time limit (1s): 0-65,536 bytes of each call written, of a 262,144-byte body"},
		{"bodies of two lengths", []attempt.Attempt{
			timeout(&attempt.Silence{Wrote: 100, Body: 262144, Waited: time.Second}),
			timeout(&attempt.Silence{Wrote: 100, Body: 1048576, Waited: time.Second})},
			"the body was never taken: the write of the call did not complete within the time limit (1s): 100 bytes of each call written, of bodies of 262,144-1,048,576 bytes"},
		{"written whole, no answer", []attempt.Attempt{
			timeout(&attempt.Silence{Wrote: 922, Whole: true, Waited: 5 * time.Second}),
			timeout(&attempt.Silence{Wrote: 1874, Whole: true, Waited: 5 * time.Second})},
			"each call was written whole (922-1,874 bytes; whether the receiver read them is not known) and no byte of an answer came within the time limit (5s)"},
		{"written whole, part of an answer on one", []attempt.Attempt{
			timeout(&attempt.Silence{Wrote: 922, Whole: true, Read: 16, Waited: time.Second}),
			timeout(&attempt.Silence{Wrote: 922, Whole: true, Waited: time.Second})},
			"each call was written whole (922 bytes; whether the receiver read them is not known) and no whole answer came within the time limit (1s): 16 bytes of an answer came on 1 of the 2 calls, not its whole head, and no byte on the rest"},
		// Not one group: the line counts each, each call's line says it.
		{"some whole, some not", []attempt.Attempt{
			timeout(&attempt.Silence{Wrote: 922, Whole: true, Waited: time.Second}),
			timeout(&attempt.Silence{Wrote: 100, Body: 262144, Waited: time.Second})},
			"1 of the 2 calls was written whole and got no whole answer, 1 was not (the body was never taken); each call's line says what went out and what came"},
		{"one not measured", []attempt.Attempt{
			timeout(&attempt.Silence{Wrote: 922, Whole: true, Waited: time.Second}),
			timeout(nil)}, ""},
	}
	for _, tt := range tests {
		var s silences
		for _, a := range tt.calls {
			s.note(a)
		}
		if got := s.words(); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}
