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

// TakenNoteAfter is TakenNote for a failure shown with shown, the
// attempt's error in full (a.Err, as the HTML report shows it): "" when
// those words say it already, as the errors of a call the transport would
// have made again and did not (sentError, closedAsSent) do. Short words
// (ShortError, send's line) never do.
func TakenNoteAfter(a Attempt, shown string) string {
	if strings.Contains(shown, notResent) {
		return ""
	}
	return TakenNote(a)
}

// notResent ends the words of an error that says itself that the call
// may have been taken, and so was not made again on a new connection.
const notResent = "not resent by the transport)"
