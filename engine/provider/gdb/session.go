package gdb

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/rea-re/rea/engine/lineage"
)

// A session is one owned gdb process and its MI pipes. Requests are
// serialized (one in flight, FIFO by arrival at the semaphore); each carries
// a numeric token, and only the result record with that token completes it.
// Cancellation or a deadline interrupts gdb with SIGINT to its owned process
// group (lineage proves ownership first); gdb answering the interrupted
// request within recoverWait keeps the session, otherwise the session is
// marked unhealthy. A dead or unhealthy session never comes back: the
// binding stays, and every later request is provider_unavailable.

const (
	recoverWait  = 5 * time.Second
	maxLineBytes = 256 << 20 // one MI record (a large symbol listing is one line)
	maxStream    = 512 << 20 // console text of one request
)

// errSessionDead marks failures of the gdb process itself.
var errSessionDead = errors.New("gdb: session is not healthy")

type reply struct {
	rec     Record
	console []string
	err     error // protocol failure (malformed record, oversize output)
}

type pending struct {
	token   uint64
	console []string
	size    int
	done    chan reply
}

type session struct {
	owned *lineage.Owned
	stdin *os.File
	sem   chan struct{}

	mu        sync.Mutex
	next      uint64
	active    *pending
	cause     error // why the session became unhealthy; nil while healthy
	unhealthy chan struct{}
	prompt    chan struct{} // closed at the first (gdb) prompt
	closed    bool
}

// startSession starts gdb through lineage and waits for its first prompt.
func startSession(ctx context.Context, path string, args []string, runID string) (*session, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	owned, err := lineage.Start(ctx, lineage.Spec{Path: path, Args: args, RunID: runID,
		Stdin: inR, Stdout: outW, Stderr: devnull})
	inR.Close()
	outW.Close()
	devnull.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	s := &session{owned: owned, stdin: inW, sem: make(chan struct{}, 1),
		unhealthy: make(chan struct{}), prompt: make(chan struct{})}
	go s.read(outR)
	go func() {
		<-owned.Exited()
		s.fail(errors.New("gdb exited"))
	}()
	t := time.NewTimer(startupTimeout)
	defer t.Stop()
	select {
	case <-s.prompt:
		return s, nil
	case <-s.unhealthy:
		err = s.err()
	case <-ctx.Done():
		err = ctx.Err()
	case <-t.C:
		err = errors.New("gdb did not prompt in time")
	}
	s.close(context.Background())
	return nil, err
}

// read parses gdb's output until EOF, routing records to the active request.
func (s *session) read(r io.ReadCloser) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(line) > maxLineBytes {
				s.fail(errors.New("gdb wrote an oversize MI record"))
				return
			}
			continue
		}
		if err != nil {
			s.fail(fmt.Errorf("gdb output ended: %w", err))
			return
		}
		s.dispatch(line[:len(line)-1])
		line = line[:0]
		if cap(line) > 1<<20 {
			line = nil // do not pin a huge buffer
		}
	}
}

func (s *session) dispatch(line []byte) {
	rec, perr := ParseRecord(line)
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.active
	if perr != nil {
		if a != nil {
			s.active = nil
			a.done <- reply{err: perr}
		}
		return
	}
	switch rec.Kind {
	case KindPrompt:
		select {
		case <-s.prompt:
		default:
			close(s.prompt)
		}
	case KindConsole, KindLog:
		if a != nil && rec.Kind == KindConsole {
			a.size += len(rec.Text)
			if a.size > maxStream {
				s.active = nil
				a.done <- reply{err: errors.New("gdb console output exceeds its bound")}
				return
			}
			a.console = append(a.console, rec.Text)
		}
	case KindResult:
		if a != nil && rec.HasToken && rec.Token == a.token {
			s.active = nil
			a.done <- reply{rec: rec, console: a.console}
		}
	}
}

// fail marks the session unhealthy once; the first cause is kept.
func (s *session) fail(cause error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cause != nil {
		return
	}
	s.cause = cause
	close(s.unhealthy)
	if a := s.active; a != nil {
		s.active = nil
		a.done <- reply{err: fmt.Errorf("%w: %v", errSessionDead, cause)}
	}
}

func (s *session) err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cause
}

// exec runs one MI command ("-data-disassemble ...", without token) and
// returns its result record and the console text gdb wrote for it.
// Failures: ctx errors (cancelled or deadline, after the interrupt
// protocol), errSessionDead, protocol errors, or *miError for ^error.
func (s *session) exec(ctx context.Context, command string) (Record, []string, error) {
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return Record{}, nil, ctx.Err()
	case <-s.unhealthy:
		return Record{}, nil, fmt.Errorf("%w: %v", errSessionDead, s.err())
	}
	defer func() { <-s.sem }()
	if err := ctx.Err(); err != nil {
		return Record{}, nil, err
	}
	s.mu.Lock()
	if s.cause != nil {
		cause := s.cause
		s.mu.Unlock()
		return Record{}, nil, fmt.Errorf("%w: %v", errSessionDead, cause)
	}
	s.next++
	p := &pending{token: s.next, done: make(chan reply, 1)}
	s.active = p
	s.mu.Unlock()
	if _, err := io.WriteString(s.stdin, strconv.FormatUint(p.token, 10)+command+"\n"); err != nil {
		s.fail(fmt.Errorf("writing to gdb: %w", err))
		return Record{}, nil, fmt.Errorf("%w: %v", errSessionDead, err)
	}
	select {
	case r := <-p.done:
		return finish(r)
	case <-ctx.Done():
	}
	// Interrupt the owned group; never signal what cannot be proved ours.
	if err := s.owned.Signal(syscall.SIGINT); err != nil {
		s.fail(fmt.Errorf("interrupting gdb: %w", err))
	} else {
		t := time.NewTimer(recoverWait)
		select {
		case r := <-p.done:
			if r.err != nil && !errors.Is(r.err, errSessionDead) {
				s.fail(r.err)
			}
		case <-t.C:
			s.fail(errors.New("gdb did not answer an interrupt"))
		}
		t.Stop()
	}
	s.mu.Lock()
	if s.active == p {
		s.active = nil
	}
	s.mu.Unlock()
	return Record{}, nil, ctx.Err()
}

func finish(r reply) (Record, []string, error) {
	if r.err != nil {
		return Record{}, nil, r.err
	}
	if r.rec.Class == "error" {
		msg, _ := r.rec.Field("msg")
		return Record{}, nil, &miError{msg: msg.Str}
	}
	return r.rec, r.console, nil
}

// miError is gdb's ^error answer. Its message is gdb's text and never
// reaches a client.
type miError struct{ msg string }

func (e *miError) Error() string { return "gdb: " + e.msg }

// close ends gdb: EOF on its stdin (gdb quits), then lineage's verified
// termination of the owned group. It returns the owned resource kinds that
// remain.
func (s *session) close(ctx context.Context) []string {
	s.mu.Lock()
	already := s.closed
	s.closed = true
	s.mu.Unlock()
	if !already {
		s.stdin.Close()
		select {
		case <-s.owned.Exited():
		case <-time.After(time.Second):
		case <-ctx.Done():
		}
		s.fail(errors.New("closed"))
	}
	return s.owned.Terminate(ctx)
}
