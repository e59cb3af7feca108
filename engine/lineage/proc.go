package lineage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// procRoot is where the process table is read.
const procRoot = "/proc"

// maxEnvironBytes bounds one /proc/PID/environ read. REA starts its
// processes with a handful of variables; a token beyond this prefix is not
// proof.
const maxEnvironBytes = 1 << 20

// statInfo is the part of /proc/PID/stat ownership checks use.
type statInfo struct {
	pid, ppid, pgid int
	state           byte
	start           uint64 // field 22, clock ticks after boot
}

func (s statInfo) zombie() bool { return s.state == 'Z' || s.state == 'X' || s.state == 'x' }

// parseStat parses /proc/PID/stat. The command name (field 2) is in
// parentheses and may itself contain spaces and parentheses, so fields are
// counted from the last ')'.
func parseStat(b []byte) (statInfo, error) {
	open := bytes.IndexByte(b, '(')
	end := bytes.LastIndexByte(b, ')')
	if open < 1 || end < open {
		return statInfo{}, errors.New("lineage: malformed stat: no command field")
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:open])))
	if err != nil || pid < 1 {
		return statInfo{}, fmt.Errorf("lineage: malformed stat pid: %q", b[:open])
	}
	f := bytes.Fields(b[end+1:])
	// f[0] is field 3 (state); field N is f[N-3].
	if len(f) < 20 || len(f[0]) != 1 {
		return statInfo{}, errors.New("lineage: malformed stat: too few fields")
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	pgid, err2 := strconv.Atoi(string(f[2]))
	start, err3 := strconv.ParseUint(string(f[19]), 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil {
		return statInfo{}, fmt.Errorf("lineage: malformed stat: %w", err)
	}
	return statInfo{pid: pid, ppid: ppid, pgid: pgid, state: f[0][0], start: start}, nil
}

// readStat reads one process's stat; a vanished process is os.ErrNotExist.
func readStat(pid int) (statInfo, error) {
	b, err := os.ReadFile(procRoot + "/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, errESRCH) {
			return statInfo{}, os.ErrNotExist
		}
		return statInfo{}, err
	}
	st, err := parseStat(b)
	if err == nil && st.pid != pid {
		err = fmt.Errorf("lineage: stat of pid %d names pid %d", pid, st.pid)
	}
	return st, err
}

// hasToken reports whether the process's environment holds exactly
// REA_PROCESS_RUN_ID=token. An unreadable environment (a zombie, another
// user's process, a vanished pid) holds no token.
func hasToken(pid int, token string) bool {
	if token == "" {
		return false
	}
	f, err := os.Open(procRoot + "/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxEnvironBytes))
	if err != nil {
		return false
	}
	want := []byte(RunTokenVar + "=" + token)
	for len(b) > 0 {
		entry := b
		if i := bytes.IndexByte(b, 0); i >= 0 {
			entry, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if bytes.Equal(entry, want) {
			return true
		}
	}
	return false
}

// exePath is the target of /proc/PID/exe.
func exePath(pid int) (string, error) {
	return os.Readlink(procRoot + "/" + strconv.Itoa(pid) + "/exe")
}

// scanTable reads the stat of every process. Processes that vanish while
// the table is read are skipped; an unreadable /proc is an error.
func scanTable(ctx context.Context) ([]statInfo, error) {
	d, err := os.Open(procRoot)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	var out []statInfo
	for {
		names, err := d.Readdirnames(512)
		for _, n := range names {
			pid, perr := strconv.Atoi(n)
			if perr != nil || pid < 1 {
				continue
			}
			st, serr := readStat(pid)
			if serr != nil {
				if errors.Is(serr, os.ErrNotExist) {
					continue
				}
				return nil, serr
			}
			out = append(out, st)
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
	}
}
