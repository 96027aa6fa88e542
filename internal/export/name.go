package export

import (
	"fmt"
)

// maxName leaves room in a DNS-1123 label (at most 63) for the suffixes
// k6-operator appends to the TestRun's name for the objects it makes:
// "<name>-initializer" and "<name>-starter" Jobs, "<name>-<n>" runner Jobs
// and "<name>-service-<n>" Services. "-initializer" is the longest, 12.
const maxName = 63 - len("-initializer")

// checkName says whether name may name the TestRun, its ConfigMap and its
// Secret: a DNS-1123 label (lower-case letters, digits and '-', a letter or
// digit at each end, at most maxName so the operator's names stay labels), which is also safe in a shell and in YAML.
func checkName(name string) error {
	bad := len(name) == 0 || len(name) > maxName || name[0] == '-' || name[len(name)-1] == '-'
	for i := 0; i < len(name) && !bad; i++ {
		c := name[i]
		bad = !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-')
	}
	if bad {
		return fmt.Errorf("--name %q: want a DNS-1123 name (lower-case letters, digits and '-', a letter or digit first and last, at most %d so k6-operator's derived names such as %q stay within 63)", name, maxName, "<name>-initializer")
	}
	return nil
}
