package payload

import (
	"time"

	"github.com/whsim/whsim/internal/fake"
)

// The domain documents the generator draws, independent of shape. The
// renderer reads them by spec.Datum (see cursor.value); amounts that follow
// from others (tax, base-currency amounts, what is left to write off) are
// computed there, from the one set of drawn values.

// party is a company or a person with its code.
type party struct{ code, name string }

// invoiceDoc is a purchase invoice.
type invoiceDoc struct {
	code       string // "" for some
	typeCode   string
	title      string
	number     string
	taxID      string
	supplier   party
	staff      party
	applicant  party // drawn for every shape; only the described carries it
	remark     string
	currency   string
	createType string
	status     string
	created    time.Time
	items      []invoiceItem
}

type invoiceItem struct {
	order, code, name string
	qty, price        fake.Decimal
	rate              fake.Decimal // the line's VAT rate, a fraction at scale 2
	attrs             []fake.Attr
	remark            string
}

// receiptDoc is a receipt with its detail lines and its source documents;
// its totals follow from them (spec.Totals).
type receiptDoc struct {
	number, typ, state, audit, writeOff string
	date                                time.Time
	customer                            party
	currency, base                      fake.Currency
	voucher                             bool
	jumpFlag                            int64 // only the sample shape carries it (see jumpFlag)
	lines                               []receiptLine
	sources                             []sourceLine
	// sums caches the totals by their index in spec.Totals, summed says
	// which are there.
	sums   [8]fake.Decimal
	summed uint8
}

type receiptLine struct {
	purpose                                   string
	due, discount, overShort, fee, writtenOff fake.Decimal
}

func (l receiptLine) afterDiscount() fake.Decimal { return l.due.Sub(l.discount) }
func (l receiptLine) received() fake.Decimal      { return l.afterDiscount().Add(l.overShort) }
func (l receiptLine) net() fake.Decimal           { return l.received().Sub(l.fee) }

// sourceLine is a source document the receipt collects on.
type sourceLine struct {
	number, typ        string
	due, planned, this fake.Decimal
	dueDate            time.Time
	remark             string
}
