package wire

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestUnreadCountsWhatTheReaderHasNotTaken: on a pipe and on a Unix stream
// socket (what Node gives a child's stdout), unreadFunc reports written
// bytes until the reader takes them, and waitRead returns only then; a
// regular file cannot say.
func TestUnreadCountsWhatTheReaderHasNotTaken(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	sw, sr := os.NewFile(uintptr(fds[0]), "server"), os.NewFile(uintptr(fds[1]), "client")
	defer sw.Close()
	defer sr.Close()
	for _, c := range []struct {
		name string
		w, r *os.File
	}{{"pipe", pw, pr}, {"socket", sw, sr}} {
		t.Run(c.name, func(t *testing.T) {
			unread := unreadFunc(c.w)
			if unread == nil {
				t.Fatal("unreadFunc: nil")
			}
			if n, err := unread(); err != nil || n != 0 {
				t.Fatalf("before writing: %d, %v", n, err)
			}
			msg := []byte(`{"jsonrpc":"2.0","method":"notifications/progress"}` + "\n")
			if _, err := c.w.Write(msg); err != nil {
				t.Fatal(err)
			}
			if n, err := unread(); err != nil || n == 0 {
				t.Fatalf("after writing: %d, %v", n, err)
			}
			tr := &stdioTransport{out: c.w, unread: unread}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			if err := tr.waitRead(ctx); err == nil {
				t.Fatal("waitRead returned before the reader took anything")
			}
			cancel()
			done := make(chan error, 1)
			go func() { done <- tr.waitRead(context.Background()) }()
			buf := make([]byte, len(msg))
			if _, err := c.r.Read(buf); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("waitRead did not return after the reader took everything")
			}
		})
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if unreadFunc(f) != nil {
		t.Fatal("a regular file has an unread count")
	}
}
