package attempt

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
