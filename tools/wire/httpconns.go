package wire

import (
	"io"
	"net"
	"sync"
	"time"
)

// The connection cap of `rea mcp --http` (CONTRACTS.md §0.3 "Resources"):
// at most MaxHTTPConnections connections are open at once, counted where
// they are accepted, before a byte of the request is read. Another is
// answered 503 with Retry-After and closed.
//
// Every open connection counts, the GET stream of an authenticated session
// included (decision): each holds a socket and goroutines whoever holds it,
// and whether a client is authenticated is known only once its headers are
// read, which is what the cap must not wait for. What keeps authenticated
// clients working while others flood the server is that the cap only ever
// refuses new connections, never ends open ones, and that nobody else holds
// a slot for long: headers and bodies have read deadlines
// (RequestReadTimeout) and a request refused for its token, Host or Origin
// closes its connection once answered (refuse).

// busyResponse is the whole answer to a connection over the cap. It is
// written as the connection is accepted, without reading the request.
const busyResponse = "HTTP/1.1 503 Service Unavailable\r\n" +
	"Retry-After: " + busyRetryAfter + "\r\n" +
	"Content-Type: text/plain; charset=utf-8\r\n" +
	"Connection: close\r\n" +
	"Content-Length: 53\r\n" +
	"\r\n" +
	"Service Unavailable: too many connections, try again\n"

const (
	// busyRetryAfter (seconds) is short: slots come free as connections
	// end, and a refusal costs the server one write.
	busyRetryAfter = "1"
	// maxLingering bounds the refused connections whose request bytes are
	// drained (and dropped) before the close, so that the client reads the
	// 503 rather than a reset; past it a refused connection is closed at
	// once.
	maxLingering = 64
	lingerFor    = time.Second
	lingerBytes  = 64 << 10
)

// connLimit is a listener that keeps at most cap of its connections open.
type connLimit struct {
	net.Listener
	slots     chan struct{} // one element per open connection
	lingering chan struct{} // one element per refused connection being drained
}

func newConnLimit(ln net.Listener, capacity int) *connLimit {
	return &connLimit{Listener: ln, slots: make(chan struct{}, capacity), lingering: make(chan struct{}, maxLingering)}
}

// Accept returns the next connection there is a slot for, refusing those
// accepted meanwhile.
func (l *connLimit) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return &slotConn{Conn: c, release: func() { <-l.slots }}, nil
		default:
			l.refuse(c)
		}
	}
}

// refuse answers c 503 and closes it. The write goes to a new socket's
// empty send buffer and cannot block the accept loop for long; the deadline
// covers a peer that never reads.
func (l *connLimit) refuse(c net.Conn) {
	c.SetWriteDeadline(time.Now().Add(lingerFor))
	if _, err := io.WriteString(c, busyResponse); err != nil {
		c.Close()
		return
	}
	select {
	case l.lingering <- struct{}{}:
	default:
		c.Close()
		return
	}
	go func() {
		defer func() { <-l.lingering }()
		defer c.Close()
		// Closing a socket with unread input sends a reset, which can
		// destroy the 503 before the client reads it: half-close, then drop
		// what the client sends for a moment.
		if cw, ok := c.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
		c.SetReadDeadline(time.Now().Add(lingerFor))
		io.CopyN(io.Discard, c, lingerBytes)
	}()
}

// slotConn gives its slot back when closed (net/http may close a
// connection more than once).
type slotConn struct {
	net.Conn
	once    sync.Once
	release func()
}

// CloseWrite lets net/http half-close before it closes (so the client reads
// the last answer rather than a reset).
func (c *slotConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
