package receiver

import (
	"encoding/binary"
	"net/http"
	"strings"

	"golang.org/x/net/http2/hpack"
)

// The stop's drain (watchListener.Close) takes HTTP/2 connections (prior
// knowledge) from the accept queue too: no server reads them, so the
// requests they carry are read here, from their HEADERS frames, as far as
// they came, and each is reported as a call listen closed while stopping.
// Only the frames that carry requests' heads are read (HEADERS,
// CONTINUATION); their bodies (DATA) are not recorded, as an HTTP/1
// call's in the accept queue is not.

// h2ClientPreface starts every HTTP/2 connection with prior knowledge,
// whole.
const h2ClientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// HTTP/2 frame types and flags read here (RFC 9113 §6).
const (
	h2FrameHeaders      = 0x1
	h2FrameContinuation = 0x9
	h2FlagEndHeaders    = 0x4
	h2FlagPadded        = 0x8
	h2FlagPriority      = 0x20
	h2FrameHeaderLen    = 9
)

// h2Request is one request of an HTTP/2 connection's first bytes.
type h2Request struct {
	stream uint32
	method string
	// target is the :path pseudo-header: path and query.
	target string
	header http.Header
	// whole says its header block came whole and decoded.
	whole bool
}

// h2Requests reads the requests in b, the first bytes of an HTTP/2
// connection (its preface first): one per stream whose HEADERS frame came,
// in order. whole says at least one came and every one's header block is
// whole: a request's head, as "\r\n\r\n" ends an HTTP/1 one.
func h2Requests(b []byte) (reqs []h2Request, whole bool) {
	if len(b) < len(h2ClientPreface) || string(b[:len(h2ClientPreface)]) != h2ClientPreface {
		return nil, false
	}
	b = b[len(h2ClientPreface):]
	// One decoder for the connection: header blocks share its table, in
	// the order they were sent. The client's table is the default's
	// (4096 bytes): no server SETTINGS ever changed it.
	dec := hpack.NewDecoder(4096, nil)
	dec.SetMaxStringLength(1 << 20)
	var block []byte // the header block being gathered, of reqs' last
	for len(b) >= h2FrameHeaderLen {
		length := int(b[0])<<16 | int(b[1])<<8 | int(b[2])
		typ, flags := b[3], b[4]
		stream := binary.BigEndian.Uint32(b[5:9]) & (1<<31 - 1)
		if len(b) < h2FrameHeaderLen+length {
			break // the frame did not come whole
		}
		payload := b[h2FrameHeaderLen : h2FrameHeaderLen+length]
		b = b[h2FrameHeaderLen+length:]
		switch {
		case typ == h2FrameHeaders && block == nil:
			frag, ok := headersFragment(payload, flags)
			if !ok {
				return reqs, false
			}
			reqs = append(reqs, h2Request{stream: stream, header: http.Header{}})
			block = append([]byte{}, frag...)
		case typ == h2FrameContinuation && block != nil && stream == reqs[len(reqs)-1].stream:
			block = append(block, payload...)
		case block != nil:
			// Only CONTINUATION may follow a header block not ended.
			return reqs, false
		default:
			continue // SETTINGS, WINDOW_UPDATE, DATA, PRIORITY, ...
		}
		if flags&h2FlagEndHeaders == 0 {
			continue
		}
		r := &reqs[len(reqs)-1]
		fields, err := dec.DecodeFull(block)
		block = nil
		if err != nil {
			return reqs, false
		}
		for _, f := range fields {
			switch f.Name {
			case ":method":
				r.method = f.Value
			case ":path":
				r.target = f.Value
			default:
				// :scheme and :authority (the Host, which an HTTP/1
				// call's record does not keep in its headers either)
				// are not headers.
				if !strings.HasPrefix(f.Name, ":") {
					r.header.Add(f.Name, f.Value)
				}
			}
		}
		r.whole = true
	}
	return reqs, len(reqs) > 0 && block == nil
}

// headersFragment is the header block fragment a HEADERS frame's payload
// holds, without its padding and priority.
func headersFragment(p []byte, flags byte) ([]byte, bool) {
	pad := 0
	if flags&h2FlagPadded != 0 {
		if len(p) < 1 {
			return nil, false
		}
		pad, p = int(p[0]), p[1:]
	}
	if flags&h2FlagPriority != 0 {
		if len(p) < 5 {
			return nil, false
		}
		p = p[5:]
	}
	if pad > len(p) {
		return nil, false
	}
	return p[:len(p)-pad], true
}
