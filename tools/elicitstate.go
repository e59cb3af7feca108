package tools

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/rea-re/rea/engine/canon"
	"github.com/rea-re/rea/engine/policy"
)

// requestStates issues and checks the requestState a 2026-07-28 capture
// carries through the client while the user is asked (CONTRACTS.md §9.9):
// base64url(P) + "." + base64url(HMAC-SHA256(K, P)), P the JCS of
// {v, nonce, connection_id, issued_at, request}. The key is per process, so
// a restart invalidates every outstanding state; a nonce is accepted once.
type requestStates struct {
	key [32]byte
	now func() time.Time

	mu   sync.Mutex
	used map[string]time.Time // nonce → when it expires
}

const (
	requestStateTTL   = 600 * time.Second
	maxRememberedUsed = 4096
)

type statePayload struct {
	V            int            `json:"v"`
	Nonce        string         `json:"nonce"`
	ConnectionID string         `json:"connection_id"`
	IssuedAt     int64          `json:"issued_at"`
	Request      policy.Request `json:"request"`
}

func newRequestStates() *requestStates {
	r := &requestStates{now: time.Now, used: map[string]time.Time{}}
	if _, err := rand.Read(r.key[:]); err != nil {
		panic("tools: no randomness for the request-state key") // the platform is broken
	}
	return r
}

func (r *requestStates) mac(p []byte) []byte {
	h := hmac.New(sha256.New, r.key[:])
	h.Write(p)
	return h.Sum(nil)
}

// issue binds a state to this connection and exactly this request.
func (r *requestStates) issue(connectionID string, req policy.Request) (string, error) {
	var nonce [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return "", err
	}
	p, err := canon.Marshal(statePayload{V: 1, Nonce: hex.EncodeToString(nonce[:]), ConnectionID: connectionID,
		IssuedAt: r.now().UnixMilli(), Request: req})
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString(p) + "." + enc.EncodeToString(r.mac(p)), nil
}

var errBadState = errors.New("request state rejected")

// redeem accepts a state once: authentic, younger than ten minutes, issued
// to this connection for a request byte-equal (JCS) to req.
func (r *requestStates) redeem(state, connectionID string, req policy.Request) error {
	enc := base64.RawURLEncoding
	ps, ms, ok := strings.Cut(state, ".")
	if !ok {
		return errBadState
	}
	p, err1 := enc.DecodeString(ps)
	m, err2 := enc.DecodeString(ms)
	if err1 != nil || err2 != nil || !hmac.Equal(m, r.mac(p)) {
		return errBadState
	}
	var sp statePayload
	if err := json.Unmarshal(p, &sp); err != nil || sp.V != 1 || sp.ConnectionID != connectionID {
		return errBadState
	}
	now := r.now()
	issued := time.UnixMilli(sp.IssuedAt)
	if now.Before(issued) || now.Sub(issued) > requestStateTTL {
		return errBadState
	}
	want, err := canon.Marshal(req)
	if err != nil {
		return err
	}
	got, err := canon.Marshal(sp.Request)
	if err != nil || !bytes.Equal(want, got) {
		return errBadState
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for n, exp := range r.used {
		if now.After(exp) {
			delete(r.used, n)
		}
	}
	if _, replayed := r.used[sp.Nonce]; replayed || len(r.used) >= maxRememberedUsed {
		return errBadState
	}
	r.used[sp.Nonce] = issued.Add(requestStateTTL)
	return nil
}
