// Package capture runs capture_process_scenario (CONTRACTS.md §2.6): one
// bounded process under a PTY, in a process group and session of its own
// that REA owns through engine/lineage, with only the named environment
// variables, scripted input, time / silence / output bounds and, for network
// "none" and "loopback", a fresh user+network namespace. It returns the
// normalized result of a rea.process-capture/v1 record as plain Go values;
// recording it is the engine's business.
//
// Network isolation: Go's os/exec can create the namespaces at clone time
// (SysProcAttr.Cloneflags with uid/gid maps) but cannot run code in the
// child before exec, and a multithreaded Go process cannot unshare a user
// namespace itself. So "none" execs the target directly into the new
// namespaces (their loopback stays down), and "loopback" execs REA's own
// binary (/proc/self/exe) in a helper mode that this package's init
// recognizes: it brings `lo` up inside the namespaces (it holds
// CAP_NET_ADMIN there as an ambient capability, or as the namespace's root
// when REA runs as root), drops that capability, and execs the target. The
// helper reports a failure over a close-on-exec pipe, whose closing without
// a word also tells the parent the target's exec happened, so lineage
// records the target — not the helper — as the launcher's executable.
package capture

import (
	"crypto/rand"
	"fmt"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"unicode/utf8"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/lineage"
	"github.com/rea-re/rea/engine/progress"
)

// The Evidence vocabulary of a capture (CONTRACTS.md §2.6, §7.1).
const (
	Operation     = "capture_process_scenario"
	PredicateType = "rea.process-capture/v1"
	ProviderID    = "rea-capture"
	Authority     = "controlled-replay"
	Confidence    = "observed"
	Isolation     = "process"
)

// Network modes of the input.
const (
	NetworkNone     = "none"
	NetworkLoopback = "loopback"
	NetworkHost     = "host"
)

// Step types.
const (
	StepWrite      = "write"
	StepWaitOutput = "wait_output"
	StepSleep      = "sleep"
	StepCloseStdin = "close_stdin"
	StepSignal     = "signal"
)

// Step outcomes.
const (
	OutcomeDone         = "done"
	OutcomeTimedOut     = "timed_out"
	OutcomeTargetExited = "target_exited"
	OutcomeSkipped      = "skipped"
)

// Exit reasons.
const (
	ReasonExited      = "exited"
	ReasonTimeout     = "timeout"
	ReasonIdleTimeout = "idle_timeout"
	ReasonOutputLimit = "output_limit"
)

// TermValue is the TERM every capture runs with.
const TermValue = "xterm-256color"

// Defaults and bounds of the input.
const (
	DefaultColumns        = 80
	DefaultRows           = 24
	DefaultTimeoutMS      = 30000
	DefaultIdleTimeoutMS  = 30000
	DefaultMaxOutputBytes = 1000000

	maxPathLen      = 4096
	maxArguments    = 256
	maxArgumentLen  = 4096
	maxEnvNames     = 64
	maxSteps        = 1000
	maxWriteData    = 65536
	maxLiteral      = 10000
	maxTerminalSize = 1000
	maxTimeoutMS    = 300000
	maxSleepMS      = 60000
	maxOutputBytes  = 10000000
)

// Terminal is the PTY's size.
type Terminal struct {
	Columns int `json:"columns"`
	Rows    int `json:"rows"`
}

// Step is one scripted action (a union discriminated by Type). Pointers tell
// an absent field from a zero one, so a field of another step type is
// rejected rather than ignored.
type Step struct {
	Type      string  `json:"type"`
	Data      *string `json:"data,omitempty"`       // write
	Sensitive *bool   `json:"sensitive,omitempty"`  // write; default false
	Literal   *string `json:"literal,omitempty"`    // wait_output
	TimeoutMS *int    `json:"timeout_ms,omitempty"` // wait_output
	MS        *int    `json:"ms,omitempty"`         // sleep
	Signal    *string `json:"signal,omitempty"`     // signal: SIGINT, SIGTERM or SIGHUP
}

// Write is a write step.
func Write(data string) Step { return Step{Type: StepWrite, Data: &data} }

// WriteSensitive is a write step whose data is redacted from parameters.
func WriteSensitive(data string) Step {
	t := true
	return Step{Type: StepWrite, Data: &data, Sensitive: &t}
}

// WaitOutput waits for literal to appear in the output.
func WaitOutput(literal string, timeoutMS int) Step {
	return Step{Type: StepWaitOutput, Literal: &literal, TimeoutMS: &timeoutMS}
}

// Sleep pauses the script.
func Sleep(ms int) Step { return Step{Type: StepSleep, MS: &ms} }

// CloseStdin sends end-of-file.
func CloseStdin() Step { return Step{Type: StepCloseStdin} }

// SendSignal signals the owned process group.
func SendSignal(name string) Step { return Step{Type: StepSignal, Signal: &name} }

// Request is the tool input. A zero number, an empty network and a zero
// terminal field mean "absent" and take the default; the MCP schema rejects
// explicit out-of-range values before they get here, and Normalize rejects
// the rest.
type Request struct {
	Executable       string   `json:"executable"`
	Arguments        []string `json:"arguments"`
	WorkingDirectory string   `json:"working_directory"`
	EnvironmentNames []string `json:"environment_names"`
	StdinSteps       []Step   `json:"stdin_steps"`
	Terminal         Terminal `json:"terminal"`
	TimeoutMS        int      `json:"timeout_ms"`
	IdleTimeoutMS    int      `json:"idle_timeout_ms"`
	MaxOutputBytes   int      `json:"max_output_bytes"`
	Network          string   `json:"network"`
}

var envNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

var signalNames = map[string]bool{"SIGINT": true, "SIGTERM": true, "SIGHUP": true}

// Normalize applies the defaults and validates r against §2.6; a failure is
// invalid_request with one issue per problem.
func (r *Request) Normalize() error {
	var issues []fault.Issue
	add := func(path, reason, msg string) {
		issues = append(issues, fault.Issue{Path: path, Reason: reason, Message: msg})
	}
	rng := func(path string, v *int, def, lo, hi int) {
		if *v == 0 && def != 0 {
			*v = def
		}
		if *v < lo || *v > hi {
			l, h := int64(lo), int64(hi)
			issues = append(issues, fault.Issue{Path: path, Reason: "out_of_range", Minimum: &l, Maximum: &h})
		}
	}
	absPath := func(path, v string) {
		switch {
		case v == "":
			add(path, "missing_argument", "an absolute path is required")
		case len(v) > maxPathLen:
			add(path, "out_of_range", "longer than 4096 bytes")
		case !filepath.IsAbs(v) || strings.ContainsRune(v, 0):
			add(path, "invalid_format", "not an absolute path")
		}
	}
	absPath("/executable", r.Executable)
	absPath("/working_directory", r.WorkingDirectory)
	if r.Arguments == nil {
		r.Arguments = []string{}
	}
	if len(r.Arguments) > maxArguments {
		add("/arguments", "out_of_range", "more than 256 arguments")
	}
	for i, a := range r.Arguments {
		if utf8.RuneCountInString(a) > maxArgumentLen {
			add(fmt.Sprintf("/arguments/%d", i), "out_of_range", "longer than 4096 characters")
		} else if strings.ContainsRune(a, 0) {
			add(fmt.Sprintf("/arguments/%d", i), "invalid_value", "contains NUL")
		}
	}
	if r.EnvironmentNames == nil {
		r.EnvironmentNames = []string{}
	}
	if len(r.EnvironmentNames) > maxEnvNames {
		add("/environment_names", "out_of_range", "more than 64 names")
	}
	for i, n := range r.EnvironmentNames {
		p := fmt.Sprintf("/environment_names/%d", i)
		switch {
		case !envNamePattern.MatchString(n):
			add(p, "invalid_format", "not an environment variable name")
		case n == "TERM" || n == lineage.RunTokenVar:
			add(p, "invalid_value", "set by REA itself")
		}
	}
	if r.StdinSteps == nil {
		r.StdinSteps = []Step{}
	}
	if len(r.StdinSteps) > maxSteps {
		add("/stdin_steps", "out_of_range", "more than 1000 steps")
	}
	for i := range r.StdinSteps {
		issues = append(issues, r.StdinSteps[i].normalize(fmt.Sprintf("/stdin_steps/%d", i))...)
	}
	rng("/terminal/columns", &r.Terminal.Columns, DefaultColumns, 1, maxTerminalSize)
	rng("/terminal/rows", &r.Terminal.Rows, DefaultRows, 1, maxTerminalSize)
	rng("/timeout_ms", &r.TimeoutMS, DefaultTimeoutMS, 1, maxTimeoutMS)
	rng("/idle_timeout_ms", &r.IdleTimeoutMS, DefaultIdleTimeoutMS, 1, maxTimeoutMS)
	rng("/max_output_bytes", &r.MaxOutputBytes, DefaultMaxOutputBytes, 1, maxOutputBytes)
	if r.Network == "" {
		r.Network = NetworkNone
	}
	if r.Network != NetworkNone && r.Network != NetworkLoopback && r.Network != NetworkHost {
		add("/network", "invalid_value", `one of "none", "loopback", "host"`)
	}
	if len(issues) > 0 {
		return fault.Invalid(Operation, issues...)
	}
	return nil
}

func (s *Step) normalize(path string) []fault.Issue {
	var issues []fault.Issue
	add := func(field, reason, msg string) {
		issues = append(issues, fault.Issue{Path: path + field, Reason: reason, Message: msg})
	}
	allowed := map[string]bool{}
	switch s.Type {
	case StepWrite:
		allowed["data"], allowed["sensitive"] = true, true
		switch {
		case s.Data == nil:
			add("/data", "missing_argument", "")
		case utf8.RuneCountInString(*s.Data) > maxWriteData:
			add("/data", "out_of_range", "longer than 65536 characters")
		}
		if s.Sensitive == nil {
			f := false
			s.Sensitive = &f
		}
	case StepWaitOutput:
		allowed["literal"], allowed["timeout_ms"] = true, true
		switch {
		case s.Literal == nil:
			add("/literal", "missing_argument", "")
		case *s.Literal == "" || utf8.RuneCountInString(*s.Literal) > maxLiteral:
			add("/literal", "out_of_range", "1..10000 characters")
		}
		switch {
		case s.TimeoutMS == nil:
			add("/timeout_ms", "missing_argument", "")
		case *s.TimeoutMS < 1 || *s.TimeoutMS > maxTimeoutMS:
			add("/timeout_ms", "out_of_range", "1..300000")
		}
	case StepSleep:
		allowed["ms"] = true
		switch {
		case s.MS == nil:
			add("/ms", "missing_argument", "")
		case *s.MS < 0 || *s.MS > maxSleepMS:
			add("/ms", "out_of_range", "0..60000")
		}
	case StepCloseStdin:
	case StepSignal:
		allowed["signal"] = true
		switch {
		case s.Signal == nil:
			add("/signal", "missing_argument", "")
		case !signalNames[*s.Signal]:
			add("/signal", "invalid_value", `one of "SIGINT", "SIGTERM", "SIGHUP"`)
		}
	default:
		add("/type", "invalid_value", "unknown step type")
		return issues
	}
	for name, present := range map[string]bool{"data": s.Data != nil, "sensitive": s.Sensitive != nil,
		"literal": s.Literal != nil, "timeout_ms": s.TimeoutMS != nil, "ms": s.MS != nil, "signal": s.Signal != nil} {
		if present && !allowed[name] {
			add("/"+name, "unknown_argument", "not a field of a "+s.Type+" step")
		}
	}
	return issues
}

// Parameters is the Evidence parameters object of a normalized request:
// every declared key present, the data of a sensitive write replaced by
// {redacted:true, bytes:N} (N its UTF-8 length). Environment values are not
// in the request, so they cannot be here.
func (r *Request) Parameters() map[string]any {
	steps := make([]any, 0, len(r.StdinSteps))
	for _, s := range r.StdinSteps {
		m := map[string]any{"type": s.Type}
		switch s.Type {
		case StepWrite:
			sensitive := s.Sensitive != nil && *s.Sensitive
			data := ""
			if s.Data != nil {
				data = *s.Data
			}
			if sensitive {
				m["data"] = map[string]any{"redacted": true, "bytes": len(data)}
			} else {
				m["data"] = data
			}
			m["sensitive"] = sensitive
		case StepWaitOutput:
			m["literal"], m["timeout_ms"] = deref(s.Literal), derefInt(s.TimeoutMS)
		case StepSleep:
			m["ms"] = derefInt(s.MS)
		case StepSignal:
			m["signal"] = deref(s.Signal)
		}
		steps = append(steps, m)
	}
	return map[string]any{
		"executable":        r.Executable,
		"arguments":         nonNil(r.Arguments),
		"working_directory": r.WorkingDirectory,
		"environment_names": nonNil(r.EnvironmentNames),
		"stdin_steps":       steps,
		"terminal":          map[string]any{"columns": r.Terminal.Columns, "rows": r.Terminal.Rows},
		"timeout_ms":        r.TimeoutMS,
		"idle_timeout_ms":   r.IdleTimeoutMS,
		"max_output_bytes":  r.MaxOutputBytes,
		"network":           r.Network,
	}
}

func deref(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

func derefInt(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Options are what the caller (the engine, after the policy preflight)
// supplies besides the request.
type Options struct {
	// Environment holds the values the named variables take (REA's own
	// environment). Values reach only the child's environment: never a
	// result, an error or a log line.
	Environment map[string]string
	// AllowHostNetwork is set when the process_capture ceiling allows
	// external networking; without it network "host" is refused.
	AllowHostNetwork bool
	// RunToken is the REA_PROCESS_RUN_ID value ([A-Za-z0-9-]{1,128}); empty
	// draws a fresh UUID v4.
	RunToken string
	// Progress receives the launch, steps, settle and cleanup phases (the
	// engine reports publish and the terminal update).
	Progress progress.Reporter
}

// PolicyNetwork is the scope network mode of §9.1 a capture requests.
func PolicyNetwork(network string) string {
	if network == NetworkHost {
		return "external"
	}
	return network
}

// EnvironmentID is the Evidence environment of a capture on this host.
func EnvironmentID() (id, platform, architecture, isolation string) {
	return "local-" + runtime.GOOS + "-" + runtime.GOARCH + "-process", runtime.GOOS, runtime.GOARCH, Isolation
}

// Executable is the captured program's identity.
type Executable struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Exit is how the run ended.
type Exit struct {
	Code   *int    `json:"code"`
	Signal *string `json:"signal"`
	Reason string  `json:"reason"`
}

// Output is the terminal transcript.
type Output struct {
	Bytes     int      `json:"bytes"`
	SHA256    string   `json:"sha256"`
	Text      string   `json:"text"`     // raw transcript, invalid bytes as U+FFFD, escapes kept
	Rendered  []string `json:"rendered"` // the final screen's rows
	Truncated bool     `json:"truncated"`
}

// StepOutcome is what became of one step.
type StepOutcome struct {
	Index   int    `json:"index"`
	Type    string `json:"type"`
	Outcome string `json:"outcome"`
	AtMS    int64  `json:"at_ms"`
}

// Process is one observed member of the owned group (or descendant).
type Process struct {
	PID            int    `json:"pid"`
	ParentPID      int    `json:"parent_pid"`
	ProcessGroupID int    `json:"process_group_id"`
	Command        string `json:"command"` // the kernel's command name (comm), never the arguments
}

// Cleanup reports the end of the owned group.
type Cleanup struct {
	ProcessGroup string `json:"process_group"` // "already_empty" or "terminated"
	Verified     bool   `json:"verified"`
}

// Result is the normalized_result of a rea.process-capture/v1 record. The
// fields tagged "-" are for the engine (lineage events, logs) and are not
// part of the record.
type Result struct {
	SchemaVersion    int           `json:"schema_version"`
	Executable       Executable    `json:"executable"`
	Arguments        []string      `json:"arguments"`
	WorkingDirectory string        `json:"working_directory"`
	EnvironmentNames []string      `json:"environment_names"`
	Network          string        `json:"network"`
	Terminal         Terminal      `json:"terminal"`
	StartedAt        string        `json:"started_at"`
	CompletedAt      string        `json:"completed_at"`
	DurationMS       int64         `json:"duration_ms"`
	Exit             Exit          `json:"exit"`
	Output           Output        `json:"output"`
	Steps            []StepOutcome `json:"steps"`
	Processes        []Process     `json:"processes"`
	Cleanup          Cleanup       `json:"cleanup"`
	Limitations      []string      `json:"limitations"`

	RunToken     string                `json:"-"` // REA_PROCESS_RUN_ID of the run
	Identity     lineage.Identity      `json:"-"` // the launcher as lineage recorded it
	Observations []lineage.Observation `json:"-"` // the lineage checks made during the run
}

// transcriptText is the raw transcript as UTF-8 with each invalid byte
// replaced by U+FFFD; escape sequences are kept.
func transcriptText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 16)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		sb.WriteRune(r)
		b = b[size:]
	}
	return sb.String()
}

// newToken is a fresh UUID v4, the run token of one capture.
func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on supported platforms
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
