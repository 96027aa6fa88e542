package whsimtest

import (
	"context"
	"testing"

	"github.com/whsim/whsim/internal/check"
)

// The whole default battery, effects included (signature with a secret,
// 300 load calls at 16), against the careful shop in memory: one
// iteration is one run, what a receiver's go test pays for Check.
func BenchmarkBattery(b *testing.B) {
	for b.Loop() {
		s := newShop(b, careful, testSecret)
		rep, err := Run(context.Background(), s, WithSecret(testSecret), WithProbe(s.probe), WithLatencyBudget(check.DefaultTimeout))
		if err != nil || rep.Failed() {
			b.Fatalf("%v %+v", err, rep)
		}
	}
}
