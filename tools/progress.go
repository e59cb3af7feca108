package tools

import (
	"context"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/rea-re/rea/engine/progress"
)

// reporter turns engine progress updates into notifications/progress
// (CONTRACTS.md §6.1): active only with a progress token; wire progress is
// cumulative across phases and strictly increasing; intermediate updates are
// rate-bounded to one per 100 ms; the terminal update is always sent and
// counts the completion step; nothing is sent after cancellation or after the
// handler returns. Totals are omitted: a multi-phase request's remaining work
// is not known in advance, and REA never guesses.
type reporter struct {
	ctx   context.Context
	srv   *server.MCPServer
	token mcp.ProgressToken
	tool  string

	mu        sync.Mutex
	active    bool
	done      bool
	sent      bool
	phase     string
	base      float64 // units of finished phases
	phaseDone float64
	last      float64
	lastAt    time.Time
}

func newReporter(ctx context.Context, srv *server.MCPServer, req mcp.CallToolRequest, tool string) *reporter {
	r := &reporter{ctx: ctx, srv: srv, tool: tool, last: -1}
	if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
		r.token, r.active = req.Params.Meta.ProgressToken, true
	}
	return r
}

// start sends the first update (completed 0).
func (r *reporter) start() {
	r.Report(progress.Update{Phase: r.tool, Completed: 0, Message: "started"})
}

// Report implements progress.Reporter.
func (r *reporter) Report(u progress.Update) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.active || r.done || r.ctx.Err() != nil {
		return
	}
	if u.Phase != r.phase {
		r.base += r.phaseDone
		r.phase, r.phaseDone = u.Phase, 0
	}
	if u.Completed > r.phaseDone {
		r.phaseDone = u.Completed
	}
	p := r.base + r.phaseDone
	now := time.Now()
	if r.last >= 0 && (p <= r.last || now.Sub(r.lastAt) < 100*time.Millisecond) {
		return
	}
	r.send(p, nil, u.Phase+": "+u.Message)
}

// finish sends the terminal update: the completion step, always.
func (r *reporter) finish(ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.active || r.done || r.ctx.Err() != nil {
		r.done = true
		return
	}
	p := max(r.base+r.phaseDone, r.last) + 1
	msg := "completed"
	if !ok {
		msg = "failed"
	}
	r.send(p, &p, r.tool+": "+msg)
	r.done = true
}

func (r *reporter) send(p float64, total *float64, msg string) {
	params := map[string]any{"progressToken": r.token, "progress": p, "message": msg}
	if total != nil {
		params["total"] = *total
	}
	r.srv.SendNotificationToClient(r.ctx, "notifications/progress", params)
	r.last, r.lastAt, r.sent = p, time.Now(), true
}

func (r *reporter) sentAny() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sent
}
