package anonymize

import (
	"context"
	"strings"
	"testing"
)

// A bank account under a generic key (no, id, 号码) inside an object whose
// other keys, or whose own key, say it is a bank's (bank, 开户行, 账户,
// account) is the account: replaced, in a string or a JSON number, and
// found by --check in the original. The same keys outside such an object,
// and an amount, a date or a bank's code inside one, are kept.
func TestBankObjectsGenericKeysHoldAccounts(t *testing.T) {
	t.Parallel()
	const acct, card = "120202020900012345", "6222021234567890123"
	tests := []struct {
		name, body string
		gone       []string // must not survive
		kept       []string // must survive byte for byte
	}{
		{"a bank object's no", `{"bank":{"name":"中国工商银行杭州分行","no":"` + card + `"}}`, []string{card}, []string{"中国工商银行杭州分行"}},
		{"a bank object's number as a JSON number", `{"bank":{"name":"工行","no":` + acct + `}}`, []string{acct}, nil},
		{"under 开户行", `{"开户行":{"名称":"中国工商银行","号码":"` + acct + `"}}`, []string{acct}, nil},
		{"an account object's id", `{"account":{"id":"` + acct + `","bank":"工行"}}`, []string{acct}, nil},
		{"a sibling key says bank", `{"payee":{"bankName":"招商银行上海分行","no":"1202-0202-0900-0123"}}`, []string{"1202-0202-0900-0123"}, nil},
		{"in an array of bank objects", `{"banks":[{"bank":"工行","no":"` + acct + `"},{"bank":"建行","no":"310012345678901"}]}`, []string{acct, "310012345678901"}, nil},
		{"an amount, a date and a bank code in a bank object are kept",
			`{"bank":{"name":"工行","code":"102100099996","amount":123456789,"openDate":1710720000000,"no":"` + acct + `"}}`,
			[]string{acct}, []string{"102100099996", "123456789", "1710720000000"}},
		{"no bank: a generic key is kept", `{"order":{"no":"` + acct + `","id":310012345678901}}`, nil, []string{acct, "310012345678901"}},
	}
	for _, tt := range tests {
		a := newTestAnonymizer(t, testKey)
		out, _, err := a.Payload([]byte(tt.body))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		for _, g := range tt.gone {
			if strings.Contains(string(out), g) {
				t.Errorf("%s: %s survives in %s", tt.name, g, out)
			}
		}
		for _, k := range tt.kept {
			if !strings.Contains(string(out), k) {
				t.Errorf("%s: %s was replaced in %s", tt.name, k, out)
			}
		}
		mustUnmarshal(t, out, new(any))
		if leaks := a.check(context.Background(), out, 1); len(leaks) != 0 {
			t.Errorf("%s: --check finds %v in %s", tt.name, leaks, out)
		}
		if leaks := a.check(context.Background(), []byte(tt.body), 1); len(tt.gone) > 0 && len(leaks) == 0 {
			t.Errorf("%s: --check finds no leak in the original %s", tt.name, tt.body)
		}
		// Read twice, as a file is, the account is counted as one.
		_, st := stream(t, newTestAnonymizer(t, testKey), []byte(tt.body+"\n"), Options{})
		if n := st.Replaced[bankAccount] + st.Replaced[bankCard]; len(tt.gone) > 0 && (n != len(tt.gone) || st.Replaced[Echo] != 0) {
			t.Errorf("%s: the report counts %v, want %d accounts and no echoes", tt.name, st.Replaced, len(tt.gone))
		}
		again, _, _ := newTestAnonymizer(t, testKey).Payload([]byte(tt.body))
		if string(again) != string(out) {
			t.Errorf("%s: another run gives %s, want %s", tt.name, again, out)
		}
	}
}
