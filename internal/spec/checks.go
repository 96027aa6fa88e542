package spec

// The ids of whsim check's rules that both sides name: check grades them
// against a receiver, and listen --forward-to judges the same rules from
// real calls. They live here so that neither side imports the other.
const (
	CheckRejectsMalformed = "rejects-malformed"
	CheckDuplicates       = "duplicates"
)
