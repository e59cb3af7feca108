package tools_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rea-re/rea/ledger"
)

// TestSIGKILLDuringAppends kills a real `rea mcp` process at random moments
// while it appends Evidence as fast as it can, 20 times over one ledger.
// After every kill the ledger verifies (hash chain, gapless seq, contiguous
// stream versions) and keeps growing.
func TestSIGKILLDuringAppends(t *testing.T) {
	dir := t.TempDir()
	fixture := compileFixture(t, dir)
	ledgerPath := filepath.Join(dir, "ledger.db")
	var lastSeq int64
	for round := range 20 {
		cmd, stdin, stdout := startRawStdio(t, "--ledger", ledgerPath, "mcp")
		w := bufio.NewWriter(stdin)
		fmt.Fprintln(w, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"crash","version":"1"}}}`)
		fmt.Fprintln(w, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"open_binary","arguments":{"path":%q}}}`+"\n", fixture)
		w.Flush()
		appending := make(chan struct{})
		go func() { // keep the server's output flowing; say when Evidence is being recorded
			r := bufio.NewReader(stdout)
			seen := false
			for {
				line, err := r.ReadBytes('\n')
				if err != nil {
					return
				}
				if !seen && strings.Contains(string(line), `"evidence_id"`) {
					seen = true
					close(appending)
				}
			}
		}()
		go func() { // a stream of Evidence-producing calls
			for i := 3; ; i++ {
				if _, err := fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"list_segments","arguments":{}}}`+"\n", i); err != nil {
					return
				}
				if w.Flush() != nil {
					return
				}
			}
		}()
		select {
		case <-appending:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("round %d: no Evidence recorded within 30s", round)
		}
		time.Sleep(time.Duration(5+rand.IntN(60)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()

		led, err := ledger.Open(context.Background(), ledgerPath, ledger.Options{})
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		rep, err := led.Verify(context.Background())
		led.Close()
		if err != nil || !rep.OK {
			t.Fatalf("round %d: verify: %+v %v", round, rep, err)
		}
		if rep.Checked.Events != rep.Head.Seq {
			t.Fatalf("round %d: %d events but head seq %d (gap)", round, rep.Checked.Events, rep.Head.Seq)
		}
		if rep.Head.Seq <= lastSeq {
			t.Fatalf("round %d: nothing appended before the kill (head %d)", round, rep.Head.Seq)
		}
		lastSeq = rep.Head.Seq
	}
	t.Logf("20 kills; ledger head seq %d verifies", lastSeq)
}
