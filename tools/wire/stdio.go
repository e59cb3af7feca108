package wire

import (
	"bufio"
	"bytes"
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/internal/jcs"
)

// The stdio transport: newline-delimited JSON-RPC on a reader and a writer,
// one MCP connection, with mcp-go's MCPServer doing all of the protocol.
//
// mcp-go ships a StdioServer; REA frames stdio itself for the cost of an
// answer, and so that a signal ends a server whose stdin is still open
// (mcp-go's read could not be interrupted). mcp-go encodes a tool result by marshalling a map that
// holds the structured content as a json.RawMessage, which encoding/json
// validates and compacts, and then compacts the whole answer again as the
// output of CallToolResult's MarshalJSON. For a page of list_procedures
// (about 20 KB, sent twice: as text and as structuredContent) that was about
// a third of a millisecond per page, most of what the server spends outside
// the ledger. REA's tool results are built from JSON it encoded itself (the
// canonical result of a record, encoding/json for the rest), so writeMessage
// writes a plain result directly and leaves every other message to
// encoding/json.
//
// Everything else follows the StdioServer it replaces: requests run
// concurrently (the engine orders a connection's provider calls itself),
// notifications are handled on the read loop in arrival order so that
// notifications/cancelled is never queued behind a request, and responses
// to the server's own requests (elicitation) are routed to their waiters
// before anything else.
//
// At most maxInFlight requests run at once (CONTRACTS.md §0). The read loop
// never stops reading for that (§0.3: cancellation of a queued or running
// request is read even when 64 requests are in flight): a request read
// while every slot is taken waits in memory, in arrival order, and starts
// when a slot is free; a notifications/cancelled naming a waiting request
// takes it out and answers it at once (a tools/call with the cancelled
// error its handler would give, anything else with nothing, as MCP asks),
// and one naming a running request cancels its context here as well as in
// mcp-go (whose cancel would be lost if it came before the handler
// registered). Earlier the loop stopped reading while the window was full,
// so 64 calls blocked on a target could never be cancelled.
//
// A waiting request costs its message and no goroutine, so a burst of
// 10,000 pipelined calls waits in a few megabytes. Waiting requests are
// bounded by maxWaiting and maxWaitingBytes, far beyond what a client that
// reads its answers reaches; past them a request is refused at once — a
// tools/call with truncated {limit:"waiting_requests"}, anything else with
// a JSON-RPC error — rather than the loop stopping, which would again leave
// cancellations unread (decision: the connection's memory stays bounded
// and it never goes deaf; the client can send again once answers arrive).
// ping is answered on the read loop and never waits: a client can always
// tell a busy server from a dead one.
//
// The loop no longer blocks on the window, so a request waiting for the
// client (elicitation) keeps its slot: the answer is read whatever the
// other requests do.

// maxStdioLine bounds one incoming message. A longer line is answered with a
// JSON-RPC parse error and skipped, never buffered whole.
const maxStdioLine = 16 << 20

// maxInFlight bounds the requests of one connection that run at once.
const maxInFlight = 64

// maxWaiting and maxWaitingBytes bound the requests of one connection that
// wait for a slot: 1,024 windows, and at most 64 MiB of their messages
// (with about 400 bytes of bookkeeping each, under 100 MiB in all).
const (
	maxWaiting      = 1024 * maxInFlight
	maxWaitingBytes = 64 << 20
)

// stdioRequest is a request read from the input, waiting or running.
type stdioRequest struct {
	key    string          // idKey of its id: what notifications/cancelled names
	id     json.RawMessage // the id as the client wrote it
	method string
	msg    []byte // what mcp-go is given
	ctx    context.Context
	cancel context.CancelFunc
	// waiting is its place among the waiting requests until it starts
	// (nil then); guarded by stdioTransport.mu.
	waiting *list.Element
}

type stdioTransport struct {
	srv    *server.MCPServer
	out    io.Writer
	unread func() (int, error) // bytes written to out that its reader has not taken; nil when out cannot say
	wmu    sync.Mutex          // one message per Write, never interleaved
	sess   *stdioSession

	// initialized is set by the read loop once an initialize succeeded;
	// a later initialize is refused (CONTRACTS.md §0).
	initialized bool

	mu           sync.Mutex
	running      int                      // requests holding a slot
	waiting      list.List                // of *stdioRequest, in arrival order
	waitingBytes int                      // of their messages
	byKey        map[string]*stdioRequest // waiting and running, by idKey
	stopped      bool
	requests     sync.WaitGroup
}

// ServeStdio serves one connection until r ends or ctx is done. end runs
// once no request is running any more, before the session is unregistered,
// with what ended the connection.
func ServeStdio(ctx context.Context, srv *server.MCPServer, r io.Reader, w io.Writer, end func(error)) error {
	growPipe(w)
	t := &stdioTransport{srv: srv, out: w, unread: unreadFunc(w), byKey: map[string]*stdioRequest{}}
	t.sess = &stdioSession{t: t, notifications: make(chan mcp.JSONRPCNotification, 100), pending: map[int64]chan elicitationAnswer{}}
	if err := srv.RegisterSession(ctx, t.sess); err != nil {
		return fmt.Errorf("register session: %w", err)
	}
	defer srv.UnregisterSession(ctx, t.sess.SessionID())
	ctx, cancel := context.WithCancel(srv.WithContext(ctx, t.sess))
	defer cancel()
	go t.forwardNotifications(ctx)

	// The read loop runs on its own goroutine so that serveStdio returns
	// when ctx ends (SIGINT), even while a read is blocked on an open
	// stdin that no close can interrupt; the loop then dispatches nothing
	// more and ends with its next read.
	loop := make(chan error, 1)
	go t.read(ctx, bufio.NewReaderSize(r, 64<<10), loop)
	var err error
	select {
	case err = <-loop:
	case <-ctx.Done():
		err = ctx.Err()
	}
	// Handlers still running see their context end; the connection is
	// over, so their answers have nowhere to go.
	cancel()
	t.stopRequests()
	if end != nil {
		end(err)
	}
	return err
}

// read reads and dispatches messages until in ends or ctx is done, then
// sends why on done. A request is served by the goroutine that read it,
// after it has started another read to take over (leader and follower):
// the request then runs at once on a goroutine that is already running,
// instead of waiting for a new one to be scheduled, which on a
// two-core virtual machine cost tens of microseconds a request. One read
// runs at a time; the go statement hands in over.
func (t *stdioTransport) read(ctx context.Context, in *bufio.Reader, done chan<- error) {
	for {
		line, err := readLine(in)
		if ctx.Err() != nil {
			done <- ctx.Err()
			return
		}
		if errors.Is(err, errLineTooLong) {
			t.writeMessage(mcp.NewJSONRPCError(mcp.NewRequestId(nil), mcp.PARSE_ERROR, "Parse error: message too long", nil))
			continue
		}
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			done <- err
			return
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var head struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal(line, &head); err != nil {
			t.writeMessage(mcp.NewJSONRPCError(mcp.NewRequestId(nil), mcp.PARSE_ERROR, "Parse error", nil))
			continue
		}
		hasID := len(head.ID) > 0 && !bytes.Equal(head.ID, []byte("null"))
		switch {
		case head.Method == "" && hasID:
			t.sess.answer(line)
		case head.Method != "" && len(head.ID) > 0 && !validID(head.ID):
			// A request whose id is not a string or an integer (null
			// included: MCP forbids it) is answered with id null.
			t.writeRaw(errorWithRawID([]byte("null"), mcp.INVALID_REQUEST, "Invalid Request: the id must be a string or an integer"))
		case hasID && head.Method == string(mcp.MethodInitialize):
			// The handshake runs on the read loop: it is quick, and the
			// next message must see whether it succeeded.
			if t.initialized {
				t.writeRaw(errorWithRawID(head.ID, mcp.INVALID_REQUEST, "Invalid Request: the connection is already initialized"))
				continue
			}
			msg, ok := t.forServer(line, head.ID)
			if !ok {
				t.writeRaw(errorWithRawID(head.ID, mcp.INVALID_REQUEST, "Invalid Request"))
				continue
			}
			_, failed := t.handle(ctx, msg).(mcp.JSONRPCError)
			t.initialized = !failed
		case hasID:
			msg, ok := t.forServer(line, head.ID)
			if !ok {
				t.writeRaw(errorWithRawID(head.ID, mcp.INVALID_REQUEST, "Invalid Request"))
				continue
			}
			if head.Method == string(mcp.MethodPing) {
				t.handle(ctx, msg) // never waits for a slot
				continue
			}
			rctx, cancel := context.WithCancel(ctx)
			r := &stdioRequest{key: idKey(head.ID), id: bytes.Clone(head.ID), method: head.Method, msg: msg, ctx: rctx, cancel: cancel}
			switch t.admit(r) {
			case admitWait:
				continue
			case admitRefuse:
				cancel()
				t.refuse(r)
				continue
			case admitDrop:
				cancel()
				continue // stopping: ctx is done, and the next read returns
			}
			go t.read(ctx, in, done)
			t.serve(r)
			return
		case head.Method == string(mcp.MethodNotificationCancelled):
			t.cancelRequest(line)
			t.handle(ctx, cancelForServer(line))
		default:
			t.handle(ctx, line)
		}
	}
}

// forServer returns the copy of a request line that mcp-go is given: the
// line itself when its id survives mcp-go, else the line with a surrogate id
// (jsonrpcid.go).
func (t *stdioTransport) forServer(line, id []byte) ([]byte, bool) {
	if plainID(id) {
		return bytes.Clone(line), true
	}
	return withSurrogateID(line, id, "")
}

// cancelForServer names the surrogate of a cancelled request whose id is
// not plain.
func cancelForServer(line []byte) []byte {
	var n struct {
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &n) != nil || !validID(n.Params.RequestID) || plainID(n.Params.RequestID) {
		return line
	}
	if msg, ok := withSurrogateID(line, n.Params.RequestID, "requestId"); ok {
		return msg
	}
	return line
}

type admission int

const (
	admitRun    admission = iota // it holds a slot: serve it now
	admitWait                    // it waits for a slot
	admitRefuse                  // too many wait
	admitDrop                    // the transport stopped
)

// admit gives r a slot, or a place among the waiting requests. A request
// never overtakes one that waits.
func (t *stdioTransport) admit(r *stdioRequest) admission {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.stopped:
		return admitDrop
	case t.running < maxInFlight && t.waiting.Len() == 0:
		t.running++
		t.requests.Add(1)
		t.byKey[r.key] = r
		return admitRun
	case t.waiting.Len() < maxWaiting && t.waitingBytes+len(r.msg) <= maxWaitingBytes:
		r.waiting = t.waiting.PushBack(r)
		t.waitingBytes += len(r.msg)
		t.byKey[r.key] = r
		return admitWait
	}
	return admitRefuse
}

// serve runs r, then every waiting request that its slot passes to.
func (t *stdioTransport) serve(r *stdioRequest) {
	for r != nil {
		t.handle(r.ctx, r.msg)
		r.cancel()
		r = t.finish(r)
	}
}

// finish gives r's slot back and returns the waiting request that takes
// it, if any.
func (t *stdioTransport) finish(r *stdioRequest) *stdioRequest {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.requests.Done() // after the next one is counted in: the count never drops to zero between them
	if t.byKey[r.key] == r {
		delete(t.byKey, r.key)
	}
	if t.stopped || t.waiting.Len() == 0 {
		t.running--
		return nil
	}
	next := t.waiting.Remove(t.waiting.Front()).(*stdioRequest)
	next.waiting = nil
	t.waitingBytes -= len(next.msg)
	t.requests.Add(1)
	return next
}

// cancelRequest applies a notifications/cancelled to the request it names,
// if REA holds it: a waiting request leaves and is answered, a running one
// has its context cancelled.
func (t *stdioTransport) cancelRequest(line []byte) {
	var n struct {
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &n) != nil || !validID(n.Params.RequestID) {
		return
	}
	key := idKey(n.Params.RequestID)
	t.mu.Lock()
	r := t.byKey[key]
	if r == nil {
		t.mu.Unlock()
		return
	}
	if r.waiting == nil {
		t.mu.Unlock()
		r.cancel()
		return
	}
	delete(t.byKey, key)
	t.waiting.Remove(r.waiting)
	r.waiting = nil
	t.waitingBytes -= len(r.msg)
	t.mu.Unlock()
	r.cancel()
	if name, ok := toolCallName(r); ok {
		t.writeToolResult(r.id, ErrorResult(fault.CancelledError(name)))
	}
}

// refuse answers a request that found too many others waiting.
func (t *stdioTransport) refuse(r *stdioRequest) {
	if name, ok := toolCallName(r); ok {
		t.writeToolResult(r.id, ErrorResult(fault.New(fault.Truncated,
			"Too many requests are waiting on this connection.",
			"Wait for answers to the requests already sent, then send this one again.",
			map[string]any{"operation": name, "limit": "waiting_requests", "maximum": maxWaiting, "truncated": true})))
		return
	}
	t.writeRaw(errorWithRawID(r.id, mcp.INTERNAL_ERROR, "Server busy: too many requests are waiting on this connection"))
}

// toolCallName is the tool a tools/call request names.
func toolCallName(r *stdioRequest) (string, bool) {
	if r.method != string(mcp.MethodToolsCall) {
		return "", false
	}
	var req struct {
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	_ = json.Unmarshal(r.msg, &req)
	return req.Params.Name, true
}

// writeToolResult writes a tool result answering the request with the raw
// id.
func (t *stdioTransport) writeToolResult(id json.RawMessage, res *mcp.CallToolResult) {
	body, err := json.Marshal(res)
	if err != nil {
		return
	}
	b := make([]byte, 0, len(body)+len(id)+40)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, body...)
	t.writeRaw(append(b, '}'))
}

// idKey is a request id as notifications/cancelled can name it: strings
// compare by value (the client may escape differently), integers by their
// text (validID admits only JSON's integer grammar, so the text is unique).
func idKey(raw json.RawMessage) string {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return "s" + s
		}
	}
	return "n" + string(raw)
}

// stopRequests refuses new requests, drops the waiting ones and waits for
// those running.
func (t *stdioTransport) stopRequests() {
	t.mu.Lock()
	t.stopped = true
	for e := t.waiting.Front(); e != nil; e = e.Next() {
		e.Value.(*stdioRequest).cancel()
	}
	t.waiting.Init()
	t.waitingBytes = 0
	t.mu.Unlock()
	t.requests.Wait()
}

var errLineTooLong = errors.New("stdio: message too long")

// readLine returns the next line. A line longer than maxStdioLine is
// consumed and reported as errLineTooLong; a last line without a newline is
// returned as a line, and io.EOF comes with the next call.
func readLine(in *bufio.Reader) ([]byte, error) {
	chunk, err := in.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		if err == io.EOF && len(chunk) > 0 {
			err = nil
		}
		return chunk, err // valid until the next read: callers copy what they keep
	}
	line := bytes.Clone(chunk)
	for {
		chunk, err = in.ReadSlice('\n')
		if len(line)+len(chunk) > maxStdioLine {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = in.ReadSlice('\n')
			}
			if err != nil && err != io.EOF {
				return nil, err
			}
			return nil, errLineTooLong
		}
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			if err == io.EOF {
				err = nil
			}
			return line, err
		}
	}
}

// handle runs one request or notification through mcp-go and writes the
// answer, if any, which it returns. A panic in a handler becomes an
// internal error for that request, as mcp-go's StdioServer does.
func (t *stdioTransport) handle(ctx context.Context, msg []byte) mcp.JSONRPCMessage {
	var answer mcp.JSONRPCMessage
	func() {
		defer func() {
			if r := recover(); r != nil {
				var head struct {
					ID any `json:"id"`
				}
				_ = json.Unmarshal(msg, &head)
				if head.ID != nil {
					answer = mcp.NewJSONRPCError(mcp.NewRequestId(head.ID), mcp.INTERNAL_ERROR, "internal error", nil)
				}
			}
		}()
		answer = t.srv.HandleMessage(ctx, msg)
	}()
	if answer != nil {
		t.writeMessage(answer)
	}
	return answer
}

func (t *stdioTransport) forwardNotifications(ctx context.Context) {
	for {
		select {
		case n := <-t.sess.notifications:
			if done, ok := flushMark(n); ok {
				close(done)
				continue
			}
			t.writeMessage(n)
		case <-ctx.Done():
			return
		}
	}
}

// flushMethod marks a point in a session's notification queue; it is never
// written. The queue is FIFO, so when the forwarder reaches the mark every
// notification queued before it has been written.
const flushMethod = "rea/internal/flush"

func flushMark(n mcp.JSONRPCNotification) (chan struct{}, bool) {
	if n.Method != flushMethod {
		return nil, false
	}
	done, ok := n.Params.AdditionalFields["done"].(chan struct{})
	return done, ok
}

// FlushNotifications returns once every notification queued so far has been
// written and, where the output can say so (a pipe or a Unix socket), read
// by the client, or when ctx ends first. A tool answer waits for it so that
// its progress notifications precede the answer (CONTRACTS.md §6.1).
//
// Written is not enough for the TypeScript SDK client: it dispatches a
// notification on a microtask but a response at once, and it handles all
// the messages of one read in one go, so a terminal progress update that
// shares a read with its answer reaches a request the client has already
// answered and is dropped ("unknown token"). Waiting until the client has
// taken the notifications puts the answer in a read of its own.
func (s *stdioSession) FlushNotifications(ctx context.Context) error {
	if err := s.flushQueue(ctx); err != nil {
		return err
	}
	return s.t.waitRead(ctx)
}

func (s *stdioSession) flushQueue(ctx context.Context) error {
	done := make(chan struct{})
	mark := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: flushMethod,
		Params: mcp.NotificationParams{AdditionalFields: map[string]any{"done": done}}}}
	select {
	case s.notifications <- mark:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitRead returns once the client has read everything written so far, or
// when ctx ends; at once when the output cannot say.
func (t *stdioTransport) waitRead(ctx context.Context) error {
	if t.unread == nil {
		return nil
	}
	for pause := time.Duration(0); ; pause = min(2*pause+20*time.Microsecond, time.Millisecond) {
		if n, err := t.unread(); err != nil || n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
	}
}

// writeMessage writes one message and a newline in a single Write.
func (t *stdioTransport) writeMessage(msg any) {
	b, ok := EncodeToolResponse(msg)
	if !ok {
		var err error
		if b, err = json.Marshal(msg); err != nil {
			return
		}
	}
	t.writeRaw(restoreID(b))
}

// writeRaw writes one encoded message and a newline in a single Write.
func (t *stdioTransport) writeRaw(b []byte) {
	b = append(b, '\n')
	t.wmu.Lock()
	defer t.wmu.Unlock()
	_, _ = t.out.Write(b)
}

// EncodeToolResponse encodes a response carrying a plain tool result: one
// text content block and structured content that is already
// JSON, nothing else, and text that is valid UTF-8. It reports false for
// anything else, which encoding/json then writes. The bytes are what
// CallToolResult.MarshalJSON would produce, in its key order, apart from
// encoding/json's optional escaping of <, >, & and U+2028/9 (both decode to
// the same text).
func EncodeToolResponse(msg any) ([]byte, bool) {
	resp, ok := msg.(mcp.JSONRPCResponse)
	if !ok {
		return nil, false
	}
	var r *mcp.CallToolResult
	switch v := resp.Result.(type) {
	case *mcp.CallToolResult:
		r = v
	case mcp.CallToolResult:
		r = &v
	default:
		return nil, false
	}
	structured, ok := r.StructuredContent.(json.RawMessage)
	if !ok || len(r.RawStructuredContent) > 0 || r.Meta != nil || r.ResultType != "" || len(r.InputRequests) > 0 ||
		r.RequestState != "" || len(r.Content) != 1 {
		return nil, false
	}
	text, ok := r.Content[0].(mcp.TextContent)
	if !ok || text.Type != "text" || text.Annotations != nil || text.Meta != nil || !utf8.ValidString(text.Text) {
		return nil, false
	}
	id, err := json.Marshal(resp.ID)
	if err != nil {
		return nil, false
	}
	b := make([]byte, 0, len(text.Text)*5/4+len(structured)+len(id)+96) // escaping the text copy adds about a fifth
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":{"content":[{"type":"text","text":`...)
	b = jcs.AppendString(b, text.Text)
	b = append(b, "}]"...)
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	b = append(b, `,"structuredContent":`...)
	b = append(b, structured...)
	return append(b, "}}"...), true
}

// stdioSession is the one client session of a stdio connection.
type stdioSession struct {
	t             *stdioTransport
	notifications chan mcp.JSONRPCNotification
	initialized   atomic.Bool
	logLevel      atomic.Value // mcp.LoggingLevel

	infoMu sync.RWMutex
	info   mcp.Implementation
	caps   mcp.ClientCapabilities

	nextID    atomic.Int64
	pendingMu sync.Mutex
	pending   map[int64]chan elicitationAnswer
}

type elicitationAnswer struct {
	result *mcp.ElicitationResult
	err    error
}

var (
	_ server.SessionWithLogging     = (*stdioSession)(nil)
	_ server.SessionWithClientInfo  = (*stdioSession)(nil)
	_ server.SessionWithElicitation = (*stdioSession)(nil)
)

func (s *stdioSession) SessionID() string { return "stdio" }
func (s *stdioSession) NotificationChannel() chan<- mcp.JSONRPCNotification {
	return s.notifications
}
func (s *stdioSession) Initialize() {
	s.logLevel.Store(mcp.LoggingLevelError)
	s.initialized.Store(true)
}
func (s *stdioSession) Initialized() bool                  { return s.initialized.Load() }
func (s *stdioSession) SetLogLevel(level mcp.LoggingLevel) { s.logLevel.Store(level) }
func (s *stdioSession) GetLogLevel() mcp.LoggingLevel {
	if level, ok := s.logLevel.Load().(mcp.LoggingLevel); ok {
		return level
	}
	return mcp.LoggingLevelError
}

func (s *stdioSession) GetClientInfo() mcp.Implementation {
	s.infoMu.RLock()
	defer s.infoMu.RUnlock()
	return s.info
}

func (s *stdioSession) SetClientInfo(info mcp.Implementation) {
	s.infoMu.Lock()
	defer s.infoMu.Unlock()
	s.info = info
}

func (s *stdioSession) GetClientCapabilities() mcp.ClientCapabilities {
	s.infoMu.RLock()
	defer s.infoMu.RUnlock()
	return s.caps
}

func (s *stdioSession) SetClientCapabilities(caps mcp.ClientCapabilities) {
	s.infoMu.Lock()
	defer s.infoMu.Unlock()
	s.caps = caps
}

// RequestElicitation sends elicitation/create and waits for the client's
// answer or for ctx to end.
func (s *stdioSession) RequestElicitation(ctx context.Context, request mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	id := s.nextID.Add(1)
	answer := make(chan elicitationAnswer, 1)
	s.pendingMu.Lock()
	s.pending[id] = answer
	s.pendingMu.Unlock()
	defer func() {
		s.pendingMu.Lock()
		delete(s.pending, id)
		s.pendingMu.Unlock()
	}()
	s.t.writeMessage(struct {
		JSONRPC string                `json:"jsonrpc"`
		ID      int64                 `json:"id"`
		Method  string                `json:"method"`
		Params  mcp.ElicitationParams `json:"params"`
	}{mcp.JSONRPC_VERSION, id, string(mcp.MethodElicitationCreate), request.Params})
	select {
	case a := <-answer:
		return a.result, a.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// answer routes a response to the server's own request; one nobody waits
// for any more (the request was cancelled) is dropped.
func (s *stdioSession) answer(line []byte) {
	var resp struct {
		ID     json.Number     `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(line, &resp) != nil {
		return
	}
	id, err := resp.ID.Int64()
	if err != nil {
		return
	}
	s.pendingMu.Lock()
	waiter, ok := s.pending[id]
	s.pendingMu.Unlock()
	if !ok {
		return
	}
	var a elicitationAnswer
	switch {
	case resp.Error != nil:
		a.err = fmt.Errorf("elicitation request failed: %s", resp.Error.Message)
	case len(resp.Result) == 0:
		a.err = errors.New("elicitation response has neither result nor error")
	default:
		var result mcp.ElicitationResult
		if err := json.Unmarshal(resp.Result, &result); err != nil {
			a.err = fmt.Errorf("elicitation response: %w", err)
		} else {
			a.result = &result
		}
	}
	select {
	case waiter <- a:
	default:
	}
}
