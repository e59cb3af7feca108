package compare

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/provider"
)

// ProviderSide is a Side over a bound provider's client: list_procedures
// (every page), list_segments, and each procedure's instructions from
// procedure_assembly or every page of read_function_instructions, through
// Do, so any provider that declares those operations serves (§16.1); from a
// client that is an InstructionSource, each procedure's instructions come
// from it instead (the same instructions, without their text joined and
// split again). One
// ProviderSide is used by one goroutine at a time. Results are read through their JSON form, the
// shapes of CONTRACTS.md §2.2, whatever Go types the provider uses.
type ProviderSide struct {
	Client   provider.Client
	Document string // "" = the provider's default document
	// Call, when set, is used instead of Client.Do: the engine routes the
	// calls through the target's request queue and timeout this way.
	Call func(ctx context.Context, operation string, in provider.Params) (provider.Result, error)
	// Queue, when set, runs fn as the operation in the target's request
	// queue and timeout, as Call runs Do: the engine's route for
	// InstructionSource. With Call set and Queue nil, InstructionSource is
	// not used (no call bypasses the queue).
	Queue func(ctx context.Context, operation string, fn func(ctx context.Context) error) error

	pagedOnly bool // procedure_assembly is not served
}

// InstructionSource is offered by a client that hands over a procedure's
// instructions one by one, as procedure_assembly lists them (the same
// addresses, sizes, text and limitations, the same errors), without
// rendering one text of the whole procedure for the comparison to split
// again; the builtin provider's Client implements it, decoding each
// instruction once. fn is called for instruction i of n, in order.
// ProviderSide prefers it and keeps procedure_assembly
// and read_function_instructions for every other provider.
type InstructionSource interface {
	ProcedureInstructions(ctx context.Context, document string, entry uint64,
		fn func(i, n int, addr uint64, size int, text string)) (limitations []string, err error)
}

const pageLimit = provider.MaxPageResults // the largest page both operations serve

func (s *ProviderSide) params(extra provider.Params) provider.Params {
	p := provider.Params{}
	if s.Document != "" {
		p["document"] = s.Document
	}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

// reshape reads a provider's normalized result as the contract's JSON shape.
// The port's result types are read directly: encoding and decoding every
// instruction costs as much as decoding it (libgs: 5.5 s of 12).
func reshape(v any, into any) error {
	switch x := v.(type) {
	case provider.FunctionInstructions:
		if out, ok := into.(*insnsShape); ok {
			out.Limitations = x.Limitations
			out.Instructions.NextOffset, out.Instructions.Truncated = x.Instructions.NextOffset, x.Instructions.Truncated
			out.Instructions.Items = make([]insnShape, len(x.Instructions.Items))
			for i, it := range x.Instructions.Items {
				out.Instructions.Items[i] = insnShape(it)
			}
			return nil
		}
	case provider.Page[provider.ProcedureItem]:
		if out, ok := into.(*pageShape[procShape]); ok {
			out.NextOffset, out.Truncated = x.NextOffset, x.Truncated
			out.Items = make([]procShape, len(x.Items))
			for i, it := range x.Items {
				out.Items[i] = procShape{Address: it.Address, Value: it.Value, Aliases: it.Aliases}
				out.Items[i].Procedure.External, out.Items[i].Procedure.Thunk = it.Procedure.External, it.Procedure.Thunk
			}
			return nil
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, into)
}

type pageShape[T any] struct {
	Items      []T  `json:"items"`
	NextOffset *int `json:"next_offset"`
	Truncated  bool `json:"truncated"`
}

type procShape struct {
	Address   string   `json:"address"`
	Value     string   `json:"value"`
	Aliases   []string `json:"aliases"`
	Procedure struct {
		External bool `json:"external"`
		Thunk    bool `json:"thunk"`
	} `json:"procedure"`
}

type segShape struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

type insnShape struct {
	Address string `json:"address"`
	Bytes   string `json:"bytes"`
	Text    string `json:"text"`
}

type insnsShape struct {
	Instructions pageShape[insnShape] `json:"instructions"`
	Limitations  []string             `json:"limitations"`
}

func (s *ProviderSide) do(ctx context.Context, op string, in provider.Params) (provider.Result, error) {
	if s.Call != nil {
		return s.Call(ctx, op, s.params(in))
	}
	return s.Client.Do(ctx, op, s.params(in), nil)
}

// List implements Side.
func (s *ProviderSide) List(ctx context.Context) (Listing, error) {
	var l Listing
	lims := []string{}
	for off := 0; ; {
		res, err := s.do(ctx, provider.OpListProcedures, provider.Params{"offset": int64(off), "limit": int64(pageLimit)})
		if err != nil {
			return Listing{}, err
		}
		var pg pageShape[procShape]
		if err := reshape(res.Normalized, &pg); err != nil {
			return Listing{}, fault.Internal(Operation, fmt.Errorf("compare: list_procedures result: %w", err))
		}
		lims = append(append(lims, res.Limitations...), res.TargetLimitations...)
		for _, it := range pg.Items {
			a, err := provider.ParseAddress(it.Address)
			if err != nil {
				return Listing{}, fault.Internal(Operation, fmt.Errorf("compare: list_procedures address: %w", err))
			}
			al := slices.Clone(it.Aliases)
			slices.Sort(al)
			l.Procedures = append(l.Procedures, Procedure{Address: a, Name: it.Value, Aliases: al,
				External: it.Procedure.External, Thunk: it.Procedure.Thunk})
		}
		if pg.NextOffset == nil {
			if pg.Truncated {
				return Listing{}, fault.New(fault.Truncated, "The provider could not list every procedure.",
					"Bind a provider that lists every procedure.",
					map[string]any{"operation": Operation, "limit": "procedures", "truncated": true})
			}
			break
		}
		if *pg.NextOffset <= off {
			return Listing{}, fault.Internal(Operation, fmt.Errorf("compare: list_procedures does not advance at %d", off))
		}
		off = *pg.NextOffset
	}
	res, err := s.do(ctx, provider.OpListSegments, nil)
	if err != nil {
		return Listing{}, err
	}
	var segs []segShape
	if err := reshape(res.Normalized, &segs); err != nil {
		return Listing{}, fault.Internal(Operation, fmt.Errorf("compare: list_segments result: %w", err))
	}
	for _, sg := range segs {
		a, err1 := provider.ParseAddress(sg.Start)
		b, err2 := provider.ParseAddress(sg.End)
		if err1 == nil && err2 == nil && b > a {
			l.Segments = append(l.Segments, Range{a, b})
		}
	}
	slices.Sort(lims)
	l.Limitations = slices.Compact(lims)
	return l, nil
}

// incompleteMarks are the per-procedure limitations (read_function_instructions,
// procedure_assembly) that say the instructions returned are not the whole
// procedure, or may be decoded wrongly (an instruction set guessed).
var incompleteMarks = []string{
	"procedure's entry is not in a file-backed executable section",
	"procedure's extent runs past its section",
	"recursive descent stopped at",
	"gives this procedure's instruction set",
}

func markIncomplete(code *Code, lims []string) {
	for _, l := range lims {
		for _, m := range incompleteMarks {
			if strings.Contains(l, m) && code.Complete {
				code.Complete, code.Reason = false, l
			}
		}
	}
}

// fatal reports whether a provider error ends the comparison rather than
// marking one procedure as not decoded completely.
func fatal(ctx context.Context, err error) bool {
	return fault.Is(err, fault.Cancelled) || fault.Is(err, fault.ProviderTimeout) ||
		fault.Is(err, fault.ProviderUnavailable) || ctx.Err() != nil
}

// Instructions implements Side: procedure_assembly when the provider serves
// it (the whole procedure in one call, the same text), else, and for a
// procedure longer than procedure_assembly returns, every page of
// read_function_instructions (each page decodes the procedure again).
func (s *ProviderSide) Instructions(ctx context.Context, p Procedure) (Code, error) {
	if src, ok := s.Client.(InstructionSource); ok && !s.pagedOnly && (s.Call == nil || s.Queue != nil) {
		code, ok, err := s.direct(ctx, src, p)
		if err != nil || ok {
			return code, err
		}
	}
	if !s.pagedOnly {
		code, ok, err := s.assembly(ctx, p)
		if err != nil || ok {
			return code, err
		}
	}
	return s.paged(ctx, p)
}

// direct reads the procedure from an InstructionSource; ok is false when
// the caller should ask procedure_assembly instead (which then answers the
// error, or refuses a long procedure and is paged).
func (s *ProviderSide) direct(ctx context.Context, src InstructionSource, p Procedure) (Code, bool, error) {
	code := Code{Complete: true}
	var lims []string
	read := func(ctx context.Context) error {
		var err error
		lims, err = src.ProcedureInstructions(ctx, s.Document, p.Address, func(i, n int, a uint64, size int, text string) {
			if i == 0 {
				code.Instructions = make([]Instruction, 0, n)
			}
			code.Instructions = append(code.Instructions, Instruction{Address: a, Size: size, Text: text})
		})
		return err
	}
	var err error
	if s.Queue != nil {
		err = s.Queue(ctx, provider.OpProcedureAssembly, read)
	} else {
		err = read(ctx)
	}
	if err != nil {
		if fatal(ctx, err) {
			return Code{}, false, err
		}
		return Code{}, false, nil
	}
	markIncomplete(&code, lims)
	return code, true, nil
}

// assembly reads the procedure through procedure_assembly; ok is false when
// the caller should page instead.
func (s *ProviderSide) assembly(ctx context.Context, p Procedure) (Code, bool, error) {
	res, err := s.do(ctx, provider.OpProcedureAssembly, provider.Params{"procedure": formatAddr(p.Address)})
	if err != nil {
		if fatal(ctx, err) {
			return Code{}, false, err
		}
		if fault.Is(err, fault.CapabilityUnavailable) || fault.Is(err, fault.InvalidRequest) {
			s.pagedOnly = true
		}
		return Code{}, false, nil
	}
	text, ok := res.Normalized.(string)
	if !ok {
		if err := reshape(res.Normalized, &text); err != nil {
			s.pagedOnly = true
			return Code{}, false, nil
		}
	}
	code := Code{Complete: true}
	markIncomplete(&code, res.Limitations)
	if text == "" {
		return code, true, nil
	}
	for _, line := range strings.Split(text, "\n") {
		a, rest, ok1 := strings.Cut(line, "  ")
		hexBytes, insn, ok2 := strings.Cut(rest, "  ")
		addr, err := provider.ParseAddress(a)
		if !ok1 || !ok2 || err != nil {
			return Code{}, false, fault.Internal(Operation, fmt.Errorf("compare: procedure_assembly line %q", line))
		}
		code.Instructions = append(code.Instructions, Instruction{Address: addr, Size: len(hexBytes) / 2, Text: insn})
	}
	return code, true, nil
}

// paged reads every page of read_function_instructions.
func (s *ProviderSide) paged(ctx context.Context, p Procedure) (Code, error) {
	code := Code{Complete: true}
	for off := 0; ; {
		res, err := s.do(ctx, provider.OpReadFunctionInstructions, provider.Params{"procedure": formatAddr(p.Address),
			"offset": int64(off), "limit": int64(pageLimit)})
		if err != nil {
			if fatal(ctx, err) {
				return Code{}, err
			}
			reason := err.Error()
			var fe *fault.Error
			if errors.As(err, &fe) {
				reason = string(fe.Code) + ": " + fe.Message
			}
			return Code{Instructions: code.Instructions, Reason: "read_function_instructions failed: " + reason}, nil
		}
		var r insnsShape
		if err := reshape(res.Normalized, &r); err != nil {
			return Code{}, fault.Internal(Operation, fmt.Errorf("compare: read_function_instructions result: %w", err))
		}
		markIncomplete(&code, r.Limitations)
		for _, it := range r.Instructions.Items {
			a, err := provider.ParseAddress(it.Address)
			if err != nil {
				return Code{}, fault.Internal(Operation, fmt.Errorf("compare: instruction address: %w", err))
			}
			code.Instructions = append(code.Instructions, Instruction{Address: a, Size: len(it.Bytes) / 2, Text: it.Text})
		}
		if r.Instructions.NextOffset == nil {
			if r.Instructions.Truncated && code.Complete {
				code.Complete, code.Reason = false, "the provider did not return every instruction"
			}
			return code, nil
		}
		if *r.Instructions.NextOffset <= off {
			return Code{}, fault.Internal(Operation, fmt.Errorf("compare: read_function_instructions does not advance at %d", off))
		}
		off = *r.Instructions.NextOffset
	}
}
