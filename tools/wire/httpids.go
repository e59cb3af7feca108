package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The id rules of jsonrpcid.go on streamable HTTP: mcp-go's HTTP server
// decodes ids as the stdio path did, so a POSTed request whose id would not
// survive gets a surrogate, and every answer (JSON or SSE, also replayed
// ones) has it turned back into the original bytes. A request whose id is
// not a string or an integer, or an initialize on a live session, is
// answered 400 with -32600 before mcp-go sees it.

// serveMessage applies the id rules to a POST, then lets mcp-go serve.
func (g *httpGuard) serveMessage(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && r.Body != nil {
		body, err := io.ReadAll(r.Body)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			refuse(w, "Request Timeout: the request body did not arrive within the read deadline", http.StatusRequestTimeout)
			return
		}
		if err == nil {
			// The body is in: its deadline (httpGuard) ends here, so neither
			// a long call's SSE answer nor net/http's watch for the client
			// going away is cut by it. After a failed read it stands:
			// net/http discards what is left of the body before it closes,
			// which must not wait on the client either.
			http.NewResponseController(w).SetReadDeadline(time.Time{})
		}
		if err == nil {
			var refusal []byte
			if body, refusal = g.checkMessage(r, body); refusal != nil {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				w.Write(append(refusal, '\n'))
				return
			}
		}
		// A read error (the body is over maxRequestBody) reaches mcp-go
		// unchanged, which answers it as before.
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
		r.ContentLength = -1
		if err == nil {
			r.ContentLength = int64(len(body))
		}
	}
	g.next.ServeHTTP(idRestoringWriter{w}, r)
}

// checkMessage returns the body mcp-go is given, or the refusal to answer
// instead. A batch or a malformed body is mcp-go's to answer.
func (g *httpGuard) checkMessage(r *http.Request, body []byte) ([]byte, []byte) {
	var head struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(body, &head) != nil || head.Method == "" {
		return body, nil
	}
	if len(head.ID) == 0 {
		if head.Method == string(mcp.MethodNotificationCancelled) {
			return cancelForServer(body), nil
		}
		return body, nil
	}
	if !validID(head.ID) {
		return nil, errorWithRawID([]byte("null"), mcp.INVALID_REQUEST, "Invalid Request: the id must be a string or an integer")
	}
	if head.Method == string(mcp.MethodInitialize) {
		if id := r.Header.Get(server.HeaderKeySessionID); id != "" && g.ids.isLive(id) {
			return nil, errorWithRawID(head.ID, mcp.INVALID_REQUEST, "Invalid Request: the session is already initialized")
		}
	}
	if plainID(head.ID) {
		return body, nil
	}
	if b, ok := withSurrogateID(body, head.ID, ""); ok {
		return b, nil
	}
	return nil, errorWithRawID(head.ID, mcp.INVALID_REQUEST, "Invalid Request")
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) {
	if e.err == nil {
		return 0, io.EOF
	}
	return 0, e.err
}

// idRestoringWriter writes mcp-go's answers with original ids. mcp-go
// writes each message (a JSON body, or one SSE event) in one Write.
type idRestoringWriter struct{ http.ResponseWriter }

func (w idRestoringWriter) Write(b []byte) (int, error) {
	if _, err := w.ResponseWriter.Write(restoreID(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}

// Flush and Unwrap keep streaming and http.ResponseController working.
func (w idRestoringWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w idRestoringWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
