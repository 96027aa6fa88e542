package anonymize

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
)

// shapes of input that once cost time quadratic in their size (a 100 KB
// value took 2.75 s, 200 KB 11 s): each is built at a size n.
var linearShapes = []struct {
	name string
	make func(n int) []byte
	// perByte bounds the work per input byte where the shape is not built
	// to be the dictionary's worst case.
	perByte int
}{
	{"deep arrays of strings", func(n int) []byte {
		d := min(n/20, 9000)
		var b bytes.Buffer
		b.WriteString(`{"businessType":4010,"data":{"customerName":"上海鼎盛贸易有限公司","x":` + strings.Repeat("[", d))
		for i := 0; b.Len() < n-d; i++ {
			fmt.Fprintf(&b, `"s%d",`, i)
		}
		b.WriteString(`"end"` + strings.Repeat("]", d) + "}}")
		return b.Bytes()
	}, 64},
	{"deep objects of keys", func(n int) []byte {
		d := min(n/40, 9000)
		var b bytes.Buffer
		b.WriteString(`{"businessType":4010,"data":{"customerName":"上海鼎盛贸易有限公司","x":` + strings.Repeat(`{"k":`, d) + "{")
		for i := 0; b.Len() < n-d; i++ {
			fmt.Fprintf(&b, `"k%d":%d,`, i, i)
		}
		b.WriteString(`"end":0}` + strings.Repeat("}", d) + "}}")
		return b.Bytes()
	}, 64},
	{"a long unknown value", func(n int) []byte {
		unit := "开给上海鼎盛贸易有限公司 91310115MA1FL3XK9D 电话13812345678 数量12 "
		return []byte(`{"businessType":4010,"data":{"customerName":"上海鼎盛贸易有限公司","taxCode":"91310115MA1FL3XK9D","note":"` +
			strings.Repeat(unit, n/len(unit)) + `"}}`)
	}, 64},
	{"a long value of cards, accounts, landlines and addresses", func(n int) []byte {
		unit := "卡号6222 0212 3456 7890 128 电话（０２１）６２３４５６７８ 400-810-8888 (0571)8888666-1 021 021 400 400 地址浙江省杭州市西湖区文三路478号A座1201室 3号 路3号 上海市浦东新区张江路口 翠苑小区5幢2单元301室 区路 小区3 开户行及账号：中国工商银行上海市分行 1001 2345 0910 0123 456 账号 账户 卡号 地址 地址：见附件 住址：杭州市文三路478 浙江省杭州市文三路 超市 上市 "
		return []byte(`{"businessType":4010,"data":{"note":"` + strings.Repeat(unit, n/len(unit)) + `"}}`)
	}, 64},
	{"a long value of names in pinyin and words like them", func(n int) []byte {
		unit := "Zhang Wei, ZHANG Wei Wei Zhang Wang Xiaoming Long Range Hong Kong Zhang Weiweiweiweiweiwei zhang wei "
		return []byte(`{"businessType":4010,"data":{"note":"` + strings.Repeat(unit, n/len(unit)) + `"}}`)
	}, 64},
	{"a long value of names after their roles and words like them", func(n int) []byte {
		unit := "联系人张伟 经办人：李娜、陈静/刘磊和王建国 法定代表人欧阳娜娜 联系人王经理 联系人马上到 联系人 联系 收货人姓名 "
		return []byte(`{"businessType":4010,"data":{"note":"` + strings.Repeat(unit, n/len(unit)) + `","联系人":"` + strings.Repeat("张伟、", n/9) + `"}}`)
	}, 64},
	{"a long value of phones and tax ids after their labels and words like them", func(n int) []byte {
		unit := "电话02162345678 传真：62345678 Tel: 057188886666-8001 税号310104710932064 hotel 62345678 电话费 税号未填 Telephone 电话 2026-03-18 "
		return []byte(`{"businessType":4010,"data":{"note":"` + strings.Repeat(unit, n/len(unit)) + `","电话":"` + strings.Repeat("6", n/2) + `"}}`)
	}, 64},
	{"a long identifying value", func(n int) []byte {
		return []byte(`{"businessType":4010,"data":{"customerName":"` + strings.Repeat("鼎盛", n/6) + `","comments":"` + strings.Repeat("鼎盛", n/6) + `"}}`)
	}, 64},
	{"the dictionary's worst case", func(n int) []byte {
		return []byte(`{"businessType":4010,"data":{"customerName":"` + strings.Repeat("a", maxEcho-1) + `b","note":"` + strings.Repeat("a", n) + `"}}`)
	}, 0},
}

// Anonymizing and checking cost work in proportion to the input: eight
// times the input, at most about eight times the work (counted in steps,
// not seconds, so that a loaded machine cannot fail it).
func TestWorkIsLinearInTheInput(t *testing.T) {
	for _, sh := range linearShapes {
		t.Run(sh.name, func(t *testing.T) {
			work := func(n int) (int, int) {
				in := sh.make(n)
				a := newTestAnonymizer(t, testKey)
				if _, err := a.Stream(context.Background(), bytes.NewReader(in), io.Discard, Options{Check: true}); err != nil {
					t.Fatal(err)
				}
				return a.work, len(in)
			}
			small, sn := work(50 << 10)
			large, ln := work(400 << 10)
			ratio := float64(large) / float64(small) / (float64(ln) / float64(sn))
			t.Logf("%d bytes: %d steps; %d bytes: %d steps (%.1f a byte); ratio %.2f", sn, small, ln, large, float64(large)/float64(ln), ratio)
			if ratio > 1.25 {
				t.Errorf("work grew %.2f times faster than the input", ratio)
			}
			if sh.perByte > 0 && large > sh.perByte*ln {
				t.Errorf("%d steps for %d bytes: over %d a byte", large, ln, sh.perByte)
			}
		})
	}
}

// countdown is a context whose Err turns to Canceled after n calls: a
// cancellation at a known point of the work, with no clock.
type countdown struct {
	context.Context
	n atomic.Int64
}

func (c *countdown) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// A single large document (no line or record boundary to stop at) gives
// way to its context within a bounded amount of work.
func TestStreamStopsInsideALargeDocument(t *testing.T) {
	var doc bytes.Buffer
	doc.WriteString("[\n")
	fx := allFixtures(t)
	for i := 0; doc.Len() < 8<<20; i++ {
		if i > 0 {
			doc.WriteString(",\n")
		}
		doc.Write(fx[i%len(fx)])
	}
	doc.WriteString("\n]\n")
	for _, calls := range []int64{0, 3, 20} {
		a := newTestAnonymizer(t, testKey)
		ctx := &countdown{Context: context.Background()}
		ctx.n.Store(calls)
		_, err := a.Stream(ctx, bytes.NewReader(doc.Bytes()), io.Discard, Options{Check: true})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("after %d checks: err %v, want context.Canceled", calls, err)
		}
		// tick looks at the context every 1<<16 steps.
		if limit := int(calls+2) << 16; a.work > limit {
			t.Errorf("after %d checks: %d steps of work, want at most %d", calls, a.work, limit)
		}
	}
}
