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
	"github.com/rea-re/rea/tools/catalog"
)

// capture_process_scenario (CONTRACTS.md §2.6, §9.9): decode and normalize,
// preflight the exact request through the policy evaluator, ask the user
// when the evaluator says the request may be approved by asking, then run
// and publish.

func captureTools() []tool {
	return []tool{{catCaptureProcessScenario, (*Server).captureProcessScenario}}
}

func catCaptureProcessScenario() catalog.Spec {
	stepWrite := catalog.In(catalog.M{
		"type":      catalog.Const("write"),
		"data":      catalog.Str(0, 65536),
		"sensitive": catalog.D(catalog.Def(catalog.Bool(), false), "Redact data in the Evidence."),
	}, "type", "data")
	stepWait := catalog.In(catalog.M{
		"type":       catalog.Const("wait_output"),
		"literal":    catalog.Str(1, 10000),
		"timeout_ms": catalog.Int(1, 300000),
	}, "type", "literal", "timeout_ms")
	stepSleep := catalog.In(catalog.M{"type": catalog.Const("sleep"), "ms": catalog.Int(0, 60000)}, "type", "ms")
	stepClose := catalog.In(catalog.M{"type": catalog.Const("close_stdin")}, "type")
	stepSignal := catalog.In(catalog.M{"type": catalog.Const("signal"), "signal": catalog.Enum("SIGINT", "SIGTERM", "SIGHUP")}, "type", "signal")
	// anyOf rather than oneOf: the branches exclude each other through the type
	// const, and anyOf is the combinator more clients accept.
	step := catalog.M{"type": "object", "anyOf": []any{stepWrite, stepWait, stepSleep, stepClose, stepSignal}}

	envName := catalog.Pat(catalog.PatEnvName)
	envName["not"] = catalog.M{"enum": []any{"TERM", "REA_PROCESS_RUN_ID"}}

	return catalog.Spec{
		Name:  "capture_process_scenario",
		Title: "Capture process scenario",
		Description: "Run a program in a pseudo-terminal with scripted input, recording the transcript; needs a process_capture grant." +
			catalog.SampleText,
		Kind:     "session",
		Effects:  catalog.Effects("S W P N D"),
		Evidence: true,
		Input: catalog.In(catalog.M{
			"executable":        catalog.AbsPathIn(4096, ""),
			"arguments":         catalog.Def(catalog.Arr(catalog.Str(0, 4096), 0, 256), []any{}),
			"working_directory": catalog.AbsPathIn(4096, ""),
			"environment_names": catalog.D(catalog.Def(catalog.Arr(envName, 0, 64), []any{}), "REA variables passed through."),
			"stdin_steps":       catalog.Def(catalog.Arr(step, 0, 1000), []any{}),
			"terminal": catalog.D(catalog.Def(catalog.In(catalog.M{
				"columns": catalog.Def(catalog.Int(1, 1000), int64(80)),
				"rows":    catalog.Def(catalog.Int(1, 1000), int64(24)),
			}), catalog.M{}), ""),
			"timeout_ms":       catalog.Def(catalog.Int(1, 300000), int64(30000)),
			"idle_timeout_ms":  catalog.Def(catalog.Int(1, 300000), int64(30000)),
			"max_output_bytes": catalog.Def(catalog.Int(1, 10000000), int64(1000000)),
			"network":          catalog.Def(catalog.Enum("none", "loopback", "host"), "none"),
		}, "executable", "working_directory"),
		Result: catalog.OutAll(catalog.M{
			"schema_version":    catalog.Const(int64(1)),
			"executable":        catalog.OutAll(catalog.M{"path": catalog.String(), "sha256": catalog.Hex64()}),
			"arguments":         catalog.List(catalog.String()),
			"working_directory": catalog.String(),
			"environment_names": catalog.List(catalog.String()),
			"network":           catalog.Enum("none", "loopback", "host"),
			"terminal":          catalog.OutAll(catalog.M{"columns": catalog.Count(), "rows": catalog.Count()}),
			"started_at":        catalog.TimeOut(),
			"completed_at":      catalog.TimeOut(),
			"duration_ms":       catalog.Count(),
			"exit": catalog.OutAll(catalog.M{
				"code":   catalog.Nullable(catalog.M{"type": "integer"}),
				"signal": catalog.Nullable(catalog.String()),
				"reason": catalog.Enum("exited", "timeout", "idle_timeout", "output_limit"),
			}),
			"output": catalog.OutAll(catalog.M{
				"bytes": catalog.Count(), "sha256": catalog.Hex64(), "text": catalog.String(),
				"rendered": catalog.List(catalog.String()), "truncated": catalog.Bool(),
			}),
			"steps": catalog.List(catalog.OutAll(catalog.M{
				"index": catalog.Count(), "type": catalog.Enum("write", "wait_output", "sleep", "close_stdin", "signal"),
				"outcome": catalog.Enum("done", "timed_out", "target_exited", "skipped"), "at_ms": catalog.Count(),
			})),
			"processes": catalog.List(catalog.OutAll(catalog.M{
				"pid": catalog.Count(), "parent_pid": catalog.Count(), "process_group_id": catalog.Count(), "command": catalog.String(),
			})),
			"cleanup": catalog.OutAll(catalog.M{
				"process_group": catalog.Enum("already_empty", "terminated"), "verified": catalog.Const(true),
			}),
			"limitations": catalog.List(catalog.String()),
		}),
	}
}

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

func (s *Server) captureProcessScenario(ctx context.Context, sess *session, in input, rep progress.Reporter) (any, error) {
	raw, err := json.Marshal(in.Params)
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
