// Command mkcapture writes capture records as listen would, about -size
// bytes of them, for the anonymize benchmark: generated calls of every
// event and shape, with headers, an answer and a forward.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strconv"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/payload"
	"github.com/whsim/whsim/internal/spec"
)

func main() {
	size := flag.Int("size", 30<<20, "bytes to write, about")
	flag.Parse()
	g := payload.New(1, payload.Anchor())
	w := bufio.NewWriter(os.Stdout)
	var buf []byte
	for n, i := 0, 0; n < *size; i++ {
		e := spec.Events()[i%len(spec.Events())]
		s := spec.Shapes()[i/len(spec.Events())%len(spec.Shapes())]
		body := payload.Marshal(g.Build(e, s))
		rec := &capture.Record{Time: payload.Anchor(), Remote: "10.1.2.3:" + strconv.Itoa(40000+i%20000), Method: "POST",
			Path: "/hook", Query: "businessType=" + e.Name,
			Headers: http.Header{"Content-Type": {"application/json"}, "Content-Length": {strconv.Itoa(len(body))},
				"X-Api-Key": {"k-123"}, "User-Agent": {"erp/7.1"}},
			Response: &capture.Response{Status: 200, Body: `{"status":200}`, BodyEncoding: capture.UTF8},
			Forward:  &capture.Forward{URL: "http://127.0.0.1:3000/hook?businessType=" + e.Name, Status: 200, Body: "ok", BodyEncoding: capture.UTF8}}
		rec.SetBody(body)
		var err error
		if buf, err = capture.Append(buf[:0], rec); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		w.Write(buf)
		n += len(buf)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
