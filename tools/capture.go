package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/rea-re/rea/engine/capture"
	"github.com/rea-re/rea/engine/command"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/policy"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
)

// capture_process_scenario (CONTRACTS.md §2.6, §9.9): decode and normalize,
// preflight the exact request through the policy evaluator, ask the user
// when the evaluator says the request may be approved by asking, then run
// and publish.

// captureGate is the host and policy step of §3.4 for the capture tool: a
// host that cannot isolate a capture is unsupported_host (probed once), and
// no process_capture ceiling is policy_disabled.
func (s *Server) captureGate() (reason, remediation string, bad bool) {
	s.captureProbe.Do(func() { s.captureHostErr = capture.Probe(context.Background()) })
	if s.captureHostErr != nil {
		return "unsupported_host", "This host cannot run an isolated capture: " + hostReason(s.captureHostErr) + ".", true
	}
	if s.eng.Policy().Ceilings().Ceiling(policy.ProcessCapture) == nil {
		return "policy_disabled", "Set the process_capture administrator ceiling in the server's environment (see `rea policy status`) and restart the server.", true
	}
	return "", "", false
}

func hostReason(err error) string {
	if he, ok := err.(*capture.HostError); ok {
		return he.Reason
	}
	return err.Error()
}

func (s *Server) captureProcessScenario(ctx context.Context, sess *session, params provider.Params, rep progress.Reporter) (any, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fault.Internal(capture.Operation, err)
	}
	var req capture.Request
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, fault.Invalid(capture.Operation, fault.Issue{Path: "", Reason: "invalid_type", Message: "the input does not match the capture request shape"})
	}
	if err := req.Normalize(); err != nil {
		return nil, err
	}
	preq := command.CaptureRequest(req)
	d, err := sess.conn.AuthorizeAsking(ctx, capture.Operation, preq, sess.features.ElicitationForm)
	if err != nil && d.ElicitationSupported() {
		if server.IsModernRequest(ctx) {
			var ask *mcp.CallToolResult
			if ask, err = s.elicitByInputRequest(ctx, sess, d, preq, err); ask != nil {
				return ask, nil
			}
		} else {
			err = s.elicitCaptureGrant(ctx, sess, d, preq, err)
		}
	}
	if err != nil {
		return nil, err
	}
	env := map[string]string{}
	if s.opts.LookupEnv != nil {
		for _, name := range req.EnvironmentNames {
			if v, ok := s.opts.LookupEnv(name); ok {
				env[name] = v
			}
		}
	}
	return command.CaptureProcessScenario(ctx, sess.conn, req, req.Parameters(), env, rep)
}

// lifetimeSchema is the one question asked (§9.9).
func lifetimeSchema() map[string]any {
	return map[string]any{"type": "object",
		"properties": map[string]any{"lifetime": map[string]any{"type": "string", "enum": []string{"once", "session"}, "default": "session"}},
		"required":   []string{"lifetime"}}
}

// elicitCaptureGrant asks the client to approve exactly the denied request.
// Accept adds a connection-local grant and authorizes again (rolling the
// grant back if that still fails); decline, cancel, a failed request or bad
// content return the original denial.
func (s *Server) elicitCaptureGrant(ctx context.Context, sess *session, d policy.Decision, preq policy.Request, denial error) error {
	res, err := s.mcp.RequestElicitation(ctx, mcp.ElicitationRequest{Params: captureQuestion(d.Request)})
	if err != nil {
		return denial
	}
	return s.grantFromAnswer(ctx, sess, d, preq, res, denial)
}

// captureQuestion is the form of §9.9.
func captureQuestion(r policy.Request) mcp.ElicitationParams {
	return mcp.ElicitationParams{Mode: "form", Message: captureMessage(r), RequestedSchema: lifetimeSchema()}
}

// captureGrantInput is the id of the question in a 2026-07-28 input request.
const captureGrantInput = "process_capture_grant"

// elicitByInputRequest is the 2026-07-28 form of the question: without an
// answer, the call returns an input request carrying a signed requestState
// (and launches nothing); the client asks the user and calls again with the
// answer and the state, which must be this connection's, recent, unused and
// for exactly this request.
func (s *Server) elicitByInputRequest(ctx context.Context, sess *session, d policy.Decision, preq policy.Request, denial error) (*mcp.CallToolResult, error) {
	mrt, _ := ctx.Value(roundTripKey{}).(mcp.MultiRoundTripParams)
	if mrt.RequestState == "" {
		state, err := s.states.issue(sess.conn.ID(), d.Request)
		if err != nil {
			return nil, denial
		}
		return server.NewInputRequestBuilder(state).Elicit(captureGrantInput, captureQuestion(d.Request)).ToolResult(), nil
	}
	if err := s.states.redeem(mrt.RequestState, sess.conn.ID(), d.Request); err != nil {
		return nil, denial
	}
	res := server.ElicitationResponse(mrt.InputResponses, captureGrantInput)
	if res == nil {
		return nil, denial
	}
	return nil, s.grantFromAnswer(ctx, sess, d, preq, res, denial)
}

// grantFromAnswer turns an accepted answer into a connection grant and
// authorizes again; anything else is the original denial.
func (s *Server) grantFromAnswer(ctx context.Context, sess *session, d policy.Decision, preq policy.Request, res *mcp.ElicitationResult, denial error) error {
	if res == nil || res.Action != mcp.ElicitationResponseActionAccept {
		return denial
	}
	content, ok := res.Content.(map[string]any)
	lifetime, _ := content["lifetime"].(string)
	if !ok || len(content) != 1 || (lifetime != policy.LifetimeOnce && lifetime != policy.LifetimeSession) {
		return denial
	}
	g := policy.Grant{Scope: d.Request.Scope, GrantID: s.eng.NewULID().String(), Lifetime: lifetime}
	if lifetime == policy.LifetimeOnce {
		id := d.Request.OperationIdentity
		g.OperationIdentity = &id
	}
	if err := sess.conn.AddConnectionGrant(ctx, g); err != nil {
		return denial
	}
	if _, err := sess.conn.AuthorizeAsking(ctx, capture.Operation, preq, false); err != nil {
		sess.conn.RevokeConnectionGrant(ctx, g.GrantID, policy.SourceElicitationRollback)
		return denial
	}
	return nil
}

// captureMessage names what would be approved; never a value.
func captureMessage(r policy.Request) string {
	env := "none"
	if len(r.EnvironmentNames) > 0 {
		env = strings.Join(r.EnvironmentNames, ", ")
	}
	return fmt.Sprintf("Allow REA to run %s in %s with environment variables %s, network %s, mount %t?",
		strings.Join(r.Executables, ", "), strings.Join(r.Roots, ", "), env, r.Network, r.Mount)
}
