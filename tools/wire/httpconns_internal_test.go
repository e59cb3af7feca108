package wire

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestConnLimit: with its slots taken, the listener answers the next
// connection a well-formed 503 with Retry-After (read as net/http reads
// it) and closes it without waiting for a request; closing a counted
// connection, twice even, frees exactly one slot.
func TestConnLimit(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := newConnLimit(inner, 2)
	defer ln.Close()
	accepted := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	dial := func() net.Conn {
		c, err := net.Dial("tcp", inner.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	refused := func(c net.Conn) {
		t.Helper()
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("over the cap: %v", err)
		}
		body, err := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != busyRetryAfter ||
			!resp.Close || err != nil || int64(len(body)) != resp.ContentLength {
			t.Fatalf("over the cap: %d, Retry-After %q, close %v, body %q (%v), Content-Length %d",
				resp.StatusCode, resp.Header.Get("Retry-After"), resp.Close, body, err, resp.ContentLength)
		}
		if n, err := c.Read(make([]byte, 1)); n != 0 || err == nil {
			t.Fatalf("refused connection still open: %d %v", n, err)
		}
	}
	dial()
	dial()
	first, second := <-accepted, <-accepted
	refused(dial())
	first.Close()
	first.Close() // net/http may close twice: one slot, once
	dial()
	<-accepted
	refused(dial())
	second.Close()
}
