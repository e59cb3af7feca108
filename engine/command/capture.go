package command

import (
	"context"
	"path/filepath"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/evidence"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/capture"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/policy"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
	"github.com/rea-re/rea/engine/target"
)

// Process capture (CONTRACTS.md §2.6). The permission preflight is the
// caller's (Authorize, possibly after elicitation): CaptureProcessScenario
// runs an already authorized request and records its rea.process-capture/v1
// Evidence. evidence.Environment values go to the child only; the record names the
// variables.

// CaptureRequest is the policy request of a capture (§2.6): everything the
// run may touch, decided before anything launches.
func CaptureRequest(req capture.Request) policy.Request {
	names := append([]string{}, req.EnvironmentNames...)
	return policy.Request{Scope: policy.Scope{Capability: policy.ProcessCapture,
		Roots: []string{req.WorkingDirectory}, Executables: []string{req.Executable}, EnvironmentNames: names,
		Network: capture.PolicyNetwork(req.Network), Mount: false},
		OperationIdentity: capture.Operation + ":" + req.Executable, Access: policy.AccessWrite}
}

// CaptureProcessScenario runs req and publishes its Evidence. params are the
// Evidence parameters (sensitive writes already redacted); env holds the
// values of REA's environment the request names.
func CaptureProcessScenario(ctx context.Context, c *engine.Connection, req capture.Request, params provider.Params, env map[string]string, rep progress.Reporter) (engine.Published, error) {
	allowHost := false
	if ceiling := c.Engine().Config().Policy.Ceilings().Ceiling(policy.ProcessCapture); ceiling != nil {
		allowHost = ceiling.Network == "external"
	}
	res, err := capture.Run(ctx, req, capture.Options{Environment: env, AllowHostNetwork: allowHost, Progress: rep})
	if err != nil {
		return engine.Published{}, err
	}
	if err := ctx.Err(); err != nil { // a cancelled capture publishes nothing (§6.6)
		return engine.Published{}, fault.CancelledError(capture.Operation).WithCause(err)
	}
	subject := &evidence.Subject{Name: filepath.Base(res.Executable.Path), Digest: evidence.Digest{SHA256: res.Executable.SHA256},
		Format: "file", LocalPath: res.Executable.Path}
	if real, fi, err := target.Resolve(res.Executable.Path); err == nil {
		if d, err := target.Detect(real, fi); err == nil {
			subject.Format, subject.Architecture = d.Format, architectureOf(d.Architecture)
		}
	}
	id, platform, arch, isolation := capture.EnvironmentID()
	version := c.Engine().Config().Version
	rec := &evidence.Record{SchemaVersion: 2, Subject: subject, Claim: evidence.Claim{
		Provider:      provider.Identity{ID: capture.ProviderID, Name: "REA process capture", Version: &version},
		PredicateType: capture.PredicateType, Operation: capture.Operation, Parameters: params,
		Confidence: capture.Confidence, Authority: capture.Authority,
		Environment: &evidence.Environment{ID: id, Platform: platform, Architecture: arch, Isolation: isolation},
		Limitations: res.Limitations,
	}}
	if rec.NormalizedResult, err = canon.Marshal(res); err != nil {
		return engine.Published{}, fault.Internal(capture.Operation, err)
	}
	return c.Publish(ctx, rec, nil, nil)
}

// architectureOf is an architecture as a subject names it: null when unknown.
func architectureOf(a string) *string {
	if a == "" {
		return nil
	}
	return &a
}
