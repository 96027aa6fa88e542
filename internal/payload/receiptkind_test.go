package payload_test

import (
	"fmt"
	"strings"
)

// What a receipt is for ties its document type, its lines' purposes and
// the documents it collects on, as in Kingdee (domain notes §4.1): a 销售收款
// receipt (SKDLX01) collects sales receivables (标准应收单, 费用应收单) or
// takes an advance (预收款) on a sales order (XSDD…) before any receivable
// exists; an 其他业务收款 receipt (SKDLX02) takes other income on an 其他应收单.
// 预收款 is a purpose, not a document type. The tables are the test's own.
var (
	purposesOfType = map[string][]string{
		"销售收款":   {"销售收款", "预收款"},
		"其他业务收款": {"其他收入", "利息收入", "罚款收入"},
	}
	sourcesOfPurpose = map[string][]string{
		"销售收款": {"标准应收单", "费用应收单"},
		"预收款":  {"销售订单"},
		"其他收入": {"其他应收单"},
		"利息收入": {"其他应收单"},
		"罚款收入": {"其他应收单"},
	}
)

// receiptKind checks the type, purposes and sources of a receipt agree, and
// that its 单据状态, a workflow stage (domain notes §4.2), agrees with its
// audit and write-off: 未开始 is a receipt not submitted yet (待提交), 已完成
// one audited and written off in full, 进行中 anything between. A voided
// receipt (已作废) was never submitted.
func (c *checker) receiptKind(h map[string]any, lines, sources []any) {
	c.t.Helper()
	typ, _ := h["单据类型"].(string)
	allowed, ok := purposesOfType[typ]
	if !ok {
		c.errorf("data.收款单.单据类型", "%q is no receipt document type", typ)
		return
	}
	var purposes []string
	for i, x := range lines {
		line := x.(map[string]any)
		purpose, _ := line["收款用途"].(string)
		if !contains(allowed, purpose) {
			c.errorf(fmt.Sprintf("data.收款明细.%d.收款用途", i), "%q on a %s receipt", purpose, typ)
		}
		// A cash discount (现金折扣) rewards paying a receivable early: an
		// advance or other income settles none.
		if purpose != "销售收款" && rat(line["现金折扣"]).Sign() != 0 {
			c.errorf(fmt.Sprintf("data.收款明细.%d.现金折扣", i), "%v on a line for %s", line["现金折扣"], purpose)
		}
		if !contains(purposes, purpose) {
			purposes = append(purposes, purpose)
		}
	}
	for i, x := range sources {
		src := x.(map[string]any)
		st, _ := src["源单类型"].(string)
		no, _ := src["源单编号"].(string)
		fits := false
		for _, p := range purposes {
			fits = fits || contains(sourcesOfPurpose[p], st)
		}
		if !fits {
			c.errorf(fmt.Sprintf("data.源单明细.%d.源单类型", i), "%q collected on by lines for %v", st, purposes)
		}
		if (st == "销售订单") != strings.HasPrefix(no, "XSDD") {
			c.errorf(fmt.Sprintf("data.源单明细.%d.源单编号", i), "%q numbers a %s", no, st)
		}
	}
	state, audit, writeOff := h["单据状态"], h["审核状态"], h["核销状态"]
	switch {
	case state == "已作废":
		// An ERP voids (作废) a receipt not yet submitted only: an audited
		// one is un-audited first (Kingdee: 已审核的单据不能作废), and one
		// written off or booked to a voucher is not voided at all.
		if audit != "待提交" || writeOff != "未核销" || h["是否生产凭证"] != false {
			c.errorf("data.收款单.单据状态", "%v while 审核状态 %v, 核销状态 %v, 是否生产凭证 %v", state, audit, writeOff, h["是否生产凭证"])
		}
	case (state == "未开始") != (audit == "待提交"),
		(state == "已完成") != (audit == "已审核" && writeOff == "已核销"):
		c.errorf("data.收款单.单据状态", "%v while 审核状态 %v and 核销状态 %v", state, audit, writeOff)
	}
}
