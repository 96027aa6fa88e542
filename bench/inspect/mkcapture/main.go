// Command mkcapture writes a capture file for bench/inspect: -mb MiB of
// records (receipt calls with a -body KiB body each, requestIds r-1, r-2,
// ...), or with -body-out F one JSON body of -body KiB, for POSTing.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/whsim/whsim/internal/capture"
)

func main() {
	out := flag.String("out", "calls.ndjson", "capture file to write")
	mb := flag.Int("mb", 1024, "size of the capture, MiB")
	kb := flag.Int("body", 10, "size of each body, KiB")
	bodyOut := flag.String("body-out", "", "write one body to this file instead")
	flag.Parse()
	if err := run(*out, *mb, *kb, *bodyOut); err != nil {
		fmt.Fprintln(os.Stderr, "mkcapture:", err)
		os.Exit(1)
	}
}

func body(i, kb int) []byte {
	head := fmt.Sprintf(`{"requestId":"r-%d","businessType":5007,"data":{"收款单":{"收款单编号":"SKD%08d","业务日期":1791388800000},"pad":"`, i, i)
	b := bytes.Repeat([]byte{'x'}, kb<<10)
	copy(b, head)
	copy(b[len(b)-4:], `"}}`+"\n")
	return bytes.TrimRight(b, "\n")
}

func run(out string, mb, kb int, bodyOut string) error {
	if bodyOut != "" {
		return os.WriteFile(bodyOut, body(1, kb), 0o600)
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	t0 := time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC)
	var line []byte
	var written int64
	for i := 1; written < int64(mb)<<20; i++ {
		rec := &capture.Record{
			Capture: capture.Version, Time: t0.Add(time.Duration(i) * time.Millisecond), Remote: "127.0.0.1:5000",
			Method: "POST", Path: "/webhook", Query: "businessType=CREATE_RECEIVABLE_DOC",
			Headers:  http.Header{"Content-Type": {"application/json"}},
			Response: &capture.Response{Status: 200, Body: `{"status":200}`, BodyEncoding: capture.UTF8},
		}
		rec.SetBody(body(i, kb))
		if line, err = capture.Append(line[:0], rec); err != nil {
			return err
		}
		w.Write(line)
		written += int64(len(line))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}
