// Package compare matches the procedures of two versions of an executable
// and classifies each pair or leftover as unchanged, changed, added, removed
// or unknown (CONTRACTS.md §16).
//
// The comparison reads each side through a Side (the engine implements it
// over a bound provider's list_procedures and read_function_instructions;
// ProviderSide does so over a provider.Client) and runs in the phases of
// §16.2: decode_left, decode_right, fingerprint, match_name,
// match_structure, match_call_graph and classify. After each phase and
// every CheckpointEvery procedures within one it hands the caller a
// Checkpoint whose State, given back to Resume, continues the run; the
// result is byte-identical to an uninterrupted run. Publishing the result
// as Evidence is the engine's (§6.6).
//
// Matching is conservative: each procedure is matched at most once, a tie
// is never broken by a guess (the procedures stay unknown), a procedure
// whose instructions could not be read completely is never unchanged, and
// a procedure without a name of its own (sub_…) that found no partner is
// unknown rather than added or removed, since it may be a changed
// procedure that no evidence pairs.
package compare

import (
	"context"

	"github.com/rea-re/rea/engine/progress"
)

// Operation is the tool name errors and Evidence carry.
const Operation = "compare_binaries"

// CheckpointEvery is how many procedures a phase processes between two
// checkpoints (§16.2).
const CheckpointEvery = 5000

// Phases in order (§16.2; publish is the engine's).
const (
	PhaseDecodeLeft     = "decode_left"
	PhaseDecodeRight    = "decode_right"
	PhaseFingerprint    = "fingerprint"
	PhaseMatchName      = "match_name"
	PhaseMatchStructure = "match_structure"
	PhaseMatchCallGraph = "match_call_graph"
	PhaseClassify       = "classify"
)

// Phases lists the phases in the order they run.
var phases = [...]string{PhaseDecodeLeft, PhaseDecodeRight, PhaseFingerprint, PhaseMatchName,
	PhaseMatchStructure, PhaseMatchCallGraph, PhaseClassify}

// Phases returns the phases in the order they run.
func Phases() []string { return append([]string(nil), phases[:]...) }

// Procedure is one entry of a side's procedure list.
type Procedure struct {
	Address  uint64
	Name     string   // the primary name (list_procedures value)
	Aliases  []string // other names, sorted
	External bool
	Thunk    bool
}

// Range is an address range [Start, End).
type Range struct{ Start, End uint64 }

// Listing is what a side lists once: its procedures (sorted by address,
// unique), its mapped segments (used to mask immediates that are
// addresses), and limitations that hold for the whole target.
type Listing struct {
	Procedures  []Procedure
	Segments    []Range
	Limitations []string
}

// Instruction is one decoded instruction as read_function_instructions
// renders it.
type Instruction struct {
	Address uint64
	Size    int
	Text    string
}

// Code is a procedure's instructions. Complete is false when they could not
// be read completely (nothing decoded, a decoding bound hit, an instruction
// set guessed, undecodable bytes); Reason then says why.
type Code struct {
	Instructions []Instruction
	Complete     bool
	Reason       string
}

// Side is one of the two binaries compared.
type Side interface {
	List(ctx context.Context) (Listing, error)
	Instructions(ctx context.Context, p Procedure) (Code, error)
}

// Identity names what one side's answers are about: the bytes and the
// analysis profile that produced them.
type Identity struct {
	SHA256                string `json:"sha256"`
	AnalysisProfileDigest string `json:"analysis_profile_digest"`
}

// Checkpoint is the state after a phase, or after CheckpointEvery
// procedures within one. State is deterministic; Parts are the large,
// immutable pieces State names by digest (decoded procedures, 5,000 at a
// time): a part is never changed once handed over, so a store keyed by
// digest keeps each once, and Resume asks for them by digest.
type Checkpoint struct {
	ComparisonID string
	Phase        string
	Done         bool // the phase is finished
	Completed    int
	Total        *int // nil when the phase's total is not known
	State        []byte
	StateDigest  string // sha256 hex of State (comparison_checkpoint's state_digest)
	Parts        []Part // parts State names that no earlier checkpoint of this run handed over
}

// Part is one immutable piece of a checkpoint state.
type Part struct {
	Digest string // sha256 hex of Bytes
	Bytes  []byte
}

// Comparison is one comparison of Left against Right.
type Comparison struct {
	Left, Right     Side
	LeftID, RightID Identity
	MaxProcedures   int // 0 = DefaultMaxProcedures
	// Checkpoint, when set, receives every checkpoint; an error stops the
	// comparison with that error.
	Checkpoint func(ctx context.Context, c Checkpoint) error
	Progress   progress.Reporter

	every int // checkpoint interval; 0 = CheckpointEvery (tests set it lower)
}

// DefaultMaxProcedures is max_procedures' default (§16.1).
const DefaultMaxProcedures = 200000

// Run compares from the start.
func (c *Comparison) Run(ctx context.Context) (*Result, error) {
	r, err := c.newRun()
	if err != nil {
		return nil, err
	}
	return r.run(ctx)
}

// Resume continues from a checkpoint's State; load returns a part's bytes
// by digest. The result equals Run's byte for byte.
func (c *Comparison) Resume(ctx context.Context, state []byte, load func(digest string) ([]byte, error)) (*Result, error) {
	r, err := c.newRun()
	if err != nil {
		return nil, err
	}
	if err := r.restore(ctx, state, load); err != nil {
		return nil, err
	}
	return r.run(ctx)
}

// ID is the comparison_id of this comparison (§16.1).
func (c *Comparison) ID() (string, error) {
	return ComparisonID(c.LeftID, c.RightID, c.maxProcedures())
}

func (c *Comparison) maxProcedures() int {
	if c.MaxProcedures <= 0 {
		return DefaultMaxProcedures
	}
	return c.MaxProcedures
}
