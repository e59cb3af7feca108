package projections

// Permission history for `rea policy` (CONTRACTS.md §9.6, §9.7, §13.2), read
// from the events table itself rather than from a stored table: `rea policy`
// reads it once per invocation, and because events are the truth an answer is
// the same before and after `rea ledger rebuild`. The folds below depend only
// on the events, like every projection.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rea-re/rea/engine/events"
	"github.com/rea-re/rea/ledger"
)

// LedgerPosition names a ledger state: the seq of an event and its hash
// (policy outputs' as_of). The empty ledger is seq 0 with the genesis hash.
type LedgerPosition struct {
	Seq      int64  `json:"seq"`
	HeadHash string `json:"head_hash"`
}

// EmptyLedger is the position of a ledger with no events.
func EmptyLedger() LedgerPosition { return LedgerPosition{Seq: 0, HeadHash: ledger.GenesisHash()} }

// PolicyEvent is one event of the policy stream; exactly one payload is set.
type PolicyEvent struct {
	Seq     int64
	Type    string
	Reload  *events.PolicyReloadedData
	Added   *events.GrantAddedData
	Revoked *events.GrantRevokedData
}

// PolicyStream is the policy stream read in one read transaction with the
// ledger head, so the events and as_of describe the same state.
type PolicyStream struct {
	Head    LedgerPosition
	Version int64         // the stream's version at Head (for an expected-version append)
	Events  []PolicyEvent // seq < before, in seq order
}

// ReadPolicyStream reads the policy stream's events with seq < before
// (before <= 0: all of them).
func ReadPolicyStream(ctx context.Context, db *sql.DB, before int64) (PolicyStream, error) {
	var out PolicyStream
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return out, fmt.Errorf("projections: policy stream: %w", err)
	}
	defer tx.Rollback()
	out.Head = EmptyLedger()
	err = tx.QueryRowContext(ctx, `SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1`).Scan(&out.Head.Seq, &out.Head.HeadHash)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return out, fmt.Errorf("projections: policy stream head: %w", err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(stream_version), 0) FROM events WHERE stream = ?`,
		events.PolicyStream).Scan(&out.Version); err != nil {
		return out, fmt.Errorf("projections: policy stream version: %w", err)
	}
	if before <= 0 {
		before = out.Head.Seq + 1
	}
	rows, err := tx.QueryContext(ctx, `SELECT seq, type, data FROM events WHERE stream = ? AND seq < ? ORDER BY seq`,
		events.PolicyStream, before)
	if err != nil {
		return out, fmt.Errorf("projections: policy stream: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var pe PolicyEvent
		var data string
		if err := rows.Scan(&pe.Seq, &pe.Type, &data); err != nil {
			return out, fmt.Errorf("projections: policy stream: %w", err)
		}
		var target any
		switch pe.Type {
		case events.PolicyReloaded:
			pe.Reload = &events.PolicyReloadedData{}
			target = pe.Reload
		case events.GrantAdded:
			pe.Added = &events.GrantAddedData{}
			target = pe.Added
		case events.GrantRevoked:
			pe.Revoked = &events.GrantRevokedData{}
			target = pe.Revoked
		default:
			continue
		}
		if err := json.Unmarshal([]byte(data), target); err != nil {
			return out, fmt.Errorf("projections: policy stream seq %d: decode %s: %w", pe.Seq, pe.Type, err)
		}
		out.Events = append(out.Events, pe)
	}
	return out, rows.Err()
}

// ProjectGrantState is one project grant as the policy stream records it.
type ProjectGrantState struct {
	Grant      events.Grant
	AddedSeq   int64
	Revoked    bool // the latest event for the grant_id is grant_revoked
	RevokedSeq int64
}

// ProjectGrants folds project-grant events: the latest grant_added or
// grant_revoked of each grant_id wins. The active ones are the baseline a
// startup reload diffs the store against; the revoked ones are ledger
// revocations every process honours. Administrator grants are not events
// (they come from the recorded ceilings) and are skipped.
func ProjectGrants(evs []PolicyEvent) map[string]ProjectGrantState {
	out := map[string]ProjectGrantState{}
	for _, pe := range evs {
		switch {
		case pe.Added != nil && pe.Added.Grant.Lifetime == "project":
			out[pe.Added.Grant.GrantID] = ProjectGrantState{Grant: pe.Added.Grant, AddedSeq: pe.Seq}
		case pe.Revoked != nil:
			if st, ok := out[pe.Revoked.GrantID]; ok && !st.Revoked {
				st.Revoked, st.RevokedSeq = true, pe.Seq
				out[pe.Revoked.GrantID] = st
			}
		}
	}
	return out
}

// Active lists the grants of states that are not revoked, by grant_id.
func Active(states map[string]ProjectGrantState) []events.Grant {
	var out []events.Grant
	for _, st := range states {
		if !st.Revoked {
			out = append(out, st.Grant)
		}
	}
	slices.SortFunc(out, func(a, b events.Grant) int { return strings.Compare(a.GrantID, b.GrantID) })
	return out
}

// DecisionPolicy is the process-wide policy a recorded decision was made
// under, re-derived from the policy stream.
type DecisionPolicy struct {
	Reload events.PolicyReloadedData // the policy_reloaded at the decision's policy_seq
	// Project are the project grants in effect, by grant_id; Revoked names
	// those a ledger revocation had withdrawn by the decision.
	Project []events.Grant
	Revoked []string
}

// ErrNoReload is returned when a decision's policy_seq names no recorded
// policy_reloaded: its ceilings cannot be known.
var ErrNoReload = errors.New("projections: the decision's policy_seq names no policy_reloaded event")

// PolicyForDecision re-derives the policy a decision used from the policy
// stream events before it (evs: ReadPolicyStream(before = the decision's
// seq)). policySeq is the decision's policy_seq.
//
//   - Ceilings: those recorded by the policy_reloaded at policySeq.
//   - Additions count up to the next policy_reloaded after policySeq: a later
//     reload (a SIGHUP not yet applied, or another process's startup, such as
//     a `rea policy revoke`) was not in effect.
//   - Revocations count up to the decision: every process honours ledger
//     revocations of project grants at once.
//   - A grant revoked before or by the startup reload that began the
//     process's policy is dropped (that process never held it); one revoked
//     since stays, revoked, so the replay reports grant_revoked_or_consumed as
//     the live evaluator did.
//
// Where several processes share one ledger and reload in between, the
// startup is approximated by the last startup reload at or before policySeq.
// policySeq 0 (no reload applied) means administrator grants only, under the
// ceilings of the latest reload recorded before the decision.
func PolicyForDecision(evs []PolicyEvent, policySeq int64) (DecisionPolicy, error) {
	var dp DecisionPolicy
	if policySeq == 0 {
		// No reload was applied in the recording process (its startup store
		// was rejected): administrator grants only, from the ceilings the
		// latest reload recorded, since ceilings do not depend on the store.
		for i := len(evs) - 1; i >= 0; i-- {
			if evs[i].Reload != nil {
				dp.Reload = *evs[i].Reload
				return dp, nil
			}
		}
		return dp, ErrNoReload
	}
	var startup int64
	window := int64(-1) // end (exclusive) of the additions counted
	found := false
	for _, pe := range evs {
		if pe.Reload == nil {
			continue
		}
		switch {
		case pe.Seq == policySeq:
			dp.Reload, found = *pe.Reload, true
			if pe.Reload.Trigger == "startup" {
				startup = pe.Seq
			}
		case pe.Seq < policySeq && pe.Reload.Trigger == "startup":
			startup = pe.Seq
		case pe.Seq > policySeq && window < 0:
			window = pe.Seq
		}
	}
	if !found {
		return dp, ErrNoReload
	}
	// The startup's own diffs follow it directly; a grant they revoke had
	// left the store before the process began, so the process never held it.
	startupEnd := startup
	for i, pe := range evs {
		if pe.Seq <= startup || startup == 0 {
			continue
		}
		diff := (pe.Added != nil && pe.Added.Source == "project_store") ||
			(pe.Revoked != nil && pe.Revoked.Source == "project_store")
		if !diff || (i > 0 && evs[i-1].Seq != startupEnd) {
			break
		}
		startupEnd = pe.Seq
	}
	var inWindow []PolicyEvent
	for _, pe := range evs {
		if window < 0 || pe.Seq < window {
			inWindow = append(inWindow, pe)
		}
	}
	states := ProjectGrants(inWindow)
	for _, pe := range evs {
		if window >= 0 && pe.Seq >= window && pe.Revoked != nil {
			if st, ok := states[pe.Revoked.GrantID]; ok && !st.Revoked {
				st.Revoked, st.RevokedSeq = true, pe.Seq
				states[pe.Revoked.GrantID] = st
			}
		}
	}
	for id, st := range states {
		if st.Revoked && st.RevokedSeq <= startupEnd {
			continue
		}
		dp.Project = append(dp.Project, st.Grant)
		if st.Revoked {
			dp.Revoked = append(dp.Revoked, id)
		}
	}
	slices.SortFunc(dp.Project, func(a, b events.Grant) int { return strings.Compare(a.GrantID, b.GrantID) })
	slices.Sort(dp.Revoked)
	return dp, nil
}

// RecordedDecision is one permission_decided event.
type RecordedDecision struct {
	Seq     int64
	EventID string
	Hash    string
	Data    events.PermissionDecidedData
}

// FindDecision finds the permission_decided with decision_id id.
func FindDecision(ctx context.Context, db *sql.DB, id string) (RecordedDecision, bool, error) {
	var rd RecordedDecision
	var data string
	err := db.QueryRowContext(ctx, `SELECT seq, event_id, hash, data FROM events
		WHERE type = ? AND json_extract(data, '$.decision_id') = ? ORDER BY seq LIMIT 1`,
		events.PermissionDecided, id).Scan(&rd.Seq, &rd.EventID, &rd.Hash, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return rd, false, nil
	}
	if err != nil {
		return rd, false, fmt.Errorf("projections: find decision: %w", err)
	}
	if err := json.Unmarshal([]byte(data), &rd.Data); err != nil {
		return rd, false, fmt.Errorf("projections: decision at seq %d: %w", rd.Seq, err)
	}
	return rd, true, nil
}

// ConnectionPolicyEvent is a grant change, a consumption or the close on one
// connection's stream; exactly one payload is set (none for a close).
type ConnectionPolicyEvent struct {
	Seq      int64
	Type     string
	Added    *events.GrantAddedData
	Consumed *events.GrantConsumedData
	Revoked  *events.GrantRevokedData
}

// ConnectionPolicyEvents reads the once/session overlay history of one
// connection: its grant_added, grant_consumed, grant_revoked and
// connection_closed events with seq < before, in seq order.
func ConnectionPolicyEvents(ctx context.Context, db *sql.DB, connectionID string, before int64) ([]ConnectionPolicyEvent, error) {
	rows, err := db.QueryContext(ctx, `SELECT seq, type, data FROM events WHERE stream = ? AND seq < ?
		AND type IN (?, ?, ?, ?) ORDER BY seq`, events.ConnectionStream(connectionID), before,
		events.GrantAdded, events.GrantConsumed, events.GrantRevoked, events.ConnectionClosed)
	if err != nil {
		return nil, fmt.Errorf("projections: connection policy events: %w", err)
	}
	defer rows.Close()
	var out []ConnectionPolicyEvent
	for rows.Next() {
		var ce ConnectionPolicyEvent
		var data string
		if err := rows.Scan(&ce.Seq, &ce.Type, &data); err != nil {
			return nil, fmt.Errorf("projections: connection policy events: %w", err)
		}
		var target any
		switch ce.Type {
		case events.GrantAdded:
			ce.Added = &events.GrantAddedData{}
			target = ce.Added
		case events.GrantConsumed:
			ce.Consumed = &events.GrantConsumedData{}
			target = ce.Consumed
		case events.GrantRevoked:
			ce.Revoked = &events.GrantRevokedData{}
			target = ce.Revoked
		}
		if target != nil {
			if err := json.Unmarshal([]byte(data), target); err != nil {
				return nil, fmt.Errorf("projections: seq %d: decode %s: %w", ce.Seq, ce.Type, err)
			}
		}
		out = append(out, ce)
	}
	return out, rows.Err()
}

// ProjectRevocationsSince lists the grant ids of grant_revoked events on the
// policy stream after seq, and the last seq seen (seq when none). Every
// process sharing a ledger honours these at once (CONTRACTS.md §9.6).
func ProjectRevocationsSince(ctx context.Context, db *sql.DB, seq int64) ([]string, int64, error) {
	rows, err := db.QueryContext(ctx, `SELECT seq, data FROM events WHERE stream = ? AND seq > ? AND type = ? ORDER BY seq`,
		events.PolicyStream, seq, events.GrantRevoked)
	if err != nil {
		return nil, seq, fmt.Errorf("projections: policy revocations: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var data string
		if err := rows.Scan(&seq, &data); err != nil {
			return nil, seq, err
		}
		var d events.GrantRevokedData
		if err := json.Unmarshal([]byte(data), &d); err != nil {
			return nil, seq, fmt.Errorf("projections: policy revocation seq %d: %w", seq, err)
		}
		ids = append(ids, d.GrantID)
	}
	return ids, seq, rows.Err()
}
