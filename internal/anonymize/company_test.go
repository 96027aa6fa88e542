package anonymize

import (
	"strings"
	"testing"
)

// A company's name in free text, after a label, a verb or alone, is
// replaced by a company's stand-in, the label and the text around it kept;
// 本公司, 物流公司 and a sentence with no company's form are kept.
func TestCompanyNamesInFreeTextAreReplaced(t *testing.T) {
	t.Parallel()
	checkFreeText(t, []freeTextRow{
		{"after a label", "购买方名称：杭州恒远机械设备有限公司 纳税人识别号：91330106MA27W8Q173", "杭州恒远", "购买方名称：*有限公司 纳税人识别号：*"},
		{"after a verb", "发票开给上海鼎盛贸易有限公司，谢谢", "上海鼎盛", "发票开给*有限公司，谢谢"},
		{"a region in brackets", "卖方：博瑞信息科技（苏州）有限公司", "博瑞信息", "卖方：*有限公司"},
		{"a group's company", "客户 华润万家集团有限公司 已付款", "华润万家", "客户 *有限公司 已付款"},
		{"a sole trader's shop", "收到鸿运五金商行货款", "鸿运五金", "收到*货款"},
		{"an LLC", "付款单位：深圳市华拓电子科技有限责任公司", "华拓电子", "付款单位：*公司"},
		// What names no company stays as it was.
		{"no company's form", "本公司已发货，请联系物流公司，贵公司请查收，去商行，分公司有限公司", "", ""},
	}, func(s, want string) bool {
		before, after, _ := strings.Cut(want, "*")
		if after, rest, ok := strings.Cut(after, "*"); ok {
			return strings.HasPrefix(s, before) && strings.Contains(s, after) && strings.HasSuffix(s, rest)
		}
		return strings.HasPrefix(s, before) && strings.HasSuffix(s, after) && len(s) > len(want)
	})
}
