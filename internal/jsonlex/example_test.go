package jsonlex_test

import (
	"fmt"

	"github.com/whsim/whsim/internal/jsonlex"
)

// Replacing values by their spans leaves every other byte as it was.
func ExampleWalk() {
	body := []byte(`{"requestId": "9424f8a8", "data": {"客户\u540d\u79f0": "温州锦程", "lines": [{"name": "张三"}]}}`)
	var out []byte
	last := 0
	err := jsonlex.Walk(body, func(path []jsonlex.Seg, v jsonlex.Value) {
		if v.Kind != jsonlex.String || path[len(path)-1].Key == "requestId" {
			return
		}
		out = append(out, body[last:v.Start]...)
		out = append(out, `"***"`...)
		last = v.End
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	out = append(out, body[last:]...)
	fmt.Println(string(out))
	// Output: {"requestId": "9424f8a8", "data": {"客户\u540d\u79f0": "***", "lines": [{"name": "***"}]}}
}

func ExampleMember() {
	body := []byte(`{"requestId":"9424f8a8","businessType":5007,"data":{}}`)
	if sp, ok := jsonlex.Member(body, "businessType"); ok {
		fmt.Println(sp.Kind, string(body[sp.Start:sp.End]))
	}
	if sp, ok := jsonlex.Member(body, "requestId"); ok && sp.Kind == jsonlex.String {
		fmt.Println(jsonlex.StringAt(body, sp))
	}
	// Output:
	// number 5007
	// 9424f8a8
}
