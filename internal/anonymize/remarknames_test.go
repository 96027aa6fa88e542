package anonymize

import (
	"net/http"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/capture"
)

// A remark names a person with no role before it after a word that
// addresses someone too (请找刘洋处理, 交给王芳, 由张伟负责, 联系孙丽), not only at
// a clause's start; a word that is no name after such a word is kept.
// Found by an44: 请找刘洋处理 kept the name a remark's 刘洋经手 lost.
func TestARemarkNamesSomeoneAfterAWordThatAddressesThem(t *testing.T) {
	t.Parallel()

	for _, tt := range []struct{ remark, gone, want string }{
		{"请找刘洋处理", "刘洋", "请找某某某处理"},
		{"已交给王芳，明天发货", "王芳", "已交给某某某，明天发货"},
		{"由张伟负责", "张伟", "由某某某负责"},
		{"有问题联系孙丽", "孙丽", "有问题联系某某某"},
		{"货已到，请通知陈静确认", "陈静", "货已到，请通知某某某确认"},
		// Kept: no name after the word.
		{"请加急处理", "", "请加急处理"},
		{"由于黄色款缺货，交给仓库处理", "", "由于黄色款缺货，交给仓库处理"},
		{"请高兴地签收", "", "请高兴地签收"},
	} {
		a := newTestAnonymizer(t, testKey)
		body := []byte(`{"businessType":4010,"data":{"comments":"","remark":"` + tt.remark + `"}}`)
		out, _, err := a.Payload(body)
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ Data map[string]any }
		mustUnmarshal(t, out, &got)
		s, _ := got.Data["remark"].(string)
		if !matchesName(s, tt.want) {
			t.Errorf("%q became %q, want the form %q", tt.remark, s, tt.want)
		}
		if tt.gone != "" {
			checkAgrees(t, a, tt.remark, body, out)
		}
	}
}

// A body of plain text (not JSON, a form or XML) is free text as a
// remark is: a name in it with no role before it is found as a remark's.
// Found by an44: a text/plain body 张伟已确认 kept the name that the same
// words under "remark" lost.
func TestAPlainTextBodyIsReadAsARemark(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"张伟已确认", "货已到，李娜签收", "请找刘洋处理"} {
		rec := &capture.Record{Time: time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC), Remote: "127.0.0.1:40000", Method: "POST",
			Path: "/h", Query: "businessType=CREATE_RECEIVABLE_DOC", Headers: http.Header{"Content-Type": {"text/plain"}}}
		rec.SetBody([]byte(text))
		got := anonymizeRecord(t, rec)
		body := string(mustBody(t, got))
		if body == text || len([]rune(body)) != len([]rune(text))+1 {
			t.Errorf("%q became %q, want its name's stand-in", text, body)
		}
	}
}
