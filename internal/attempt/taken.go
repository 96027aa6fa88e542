package attempt

import "strings"

// TakenNote is what a failure says after the error of an attempt whose
// connection ended after the call went out, "" for any other: the call
// may have been taken (a handler that died on it, a receiver that read
// it and reset), which a sender that retries counts twice. Send's line,
// its JUnit, its HTML report and its job summary all say it, in these
// words.
func TakenNote(a Attempt) string {
	switch {
	case a.ClosedAsSent:
		return "on a kept-alive connection as the call went out (it may have been taken)"
	case a.EndedAfterSent:
		return "after the call went out (it may have been taken)"
	}
	return ""
}

// TakenWords are an attempt's error in full (err: a.Err, as the HTML
// report shows it) and the note to say after it (TakenNote), saying once
// that the call may have been taken: the errors of a call the transport
// would have made again and did not say it themselves. The net/http
// path's (sentError), after its cause, in words that do not say where
// the call went out, give way to the note's; the fast path's
// (closedAsSent), which say it all, stand alone. Short words (ShortError,
// send's line) never say it.
func TakenWords(a Attempt, err string) (shown, note string) {
	note = TakenNote(a)
	switch {
	case note == "":
		return err, ""
	case strings.HasSuffix(err, sentWords):
		return strings.TrimSuffix(err, sentWords), note
	case strings.Contains(err, notResent):
		return err, ""
	}
	return err, note
}

// notResent ends the words of an error that says itself that the call
// may have been taken, and so was not made again on a new connection.
const notResent = "not resent by the transport)"
