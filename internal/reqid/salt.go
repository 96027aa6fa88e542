package reqid

import "github.com/whsim/whsim/internal/spec"

// Salted is id made unique to one run: a version 4 UUID that follows from
// id and the run's nonce, so that two runs of the same seed send the same
// bodies under other requestIds. A nonce of 0 leaves id as it is (the
// byte-exact reproduction of a run).
func Salted(id string, nonce uint64) string {
	if nonce == 0 {
		return id
	}
	a := mix(nonce ^ mix(hash(id)))
	return spec.NewUUID(a, mix(a^0x9e3779b97f4a7c15))
}
