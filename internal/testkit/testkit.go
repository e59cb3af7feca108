// Package testkit holds the helpers the repository's tests share: the
// optional-tool policy (skip, or fail under REA_REQUIRE_ALL_TOOLS=1), the
// test-only npm packages (the @electron/asar oracle, the TypeScript MCP SDK
// client), the rea binary and compiled C fixtures.
//
// It is for _test.go files only; no package outside tests may import it
// (TestOnlyTestsImport checks).
package testkit

import (
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver, for PostgresURL
)

// RequireAll reports whether REA_REQUIRE_ALL_TOOLS=1, where CI installs every
// optional tool and a test that would skip for a missing one must fail.
func RequireAll() bool { return os.Getenv("REA_REQUIRE_ALL_TOOLS") == "1" }

// SkipOrFail skips the test with msg, or fails it under RequireAll.
func SkipOrFail(t testing.TB, msg string) {
	t.Helper()
	if RequireAll() {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// Need returns the path of tool on PATH, skipping the test (failing it
// under RequireAll) when it is absent.
func Need(t testing.TB, tool string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		SkipOrFail(t, "tool "+tool+" is not installed; install it to run this test")
	}
	return p
}

// ASARPackage is the reference packer the ASAR tests use as an independent
// oracle. 3.x is pinned because 4.x needs node >= 22.12, newer than Debian's.
const ASARPackage = "@electron/asar@3.4.1"

// MCPSDKPackage is the official TypeScript MCP SDK, the independent client
// that drives `rea mcp` in tools' SDK client test. 1.32.2 declares node >= 18
// (Debian's is 20); it speaks the revisions up to 2025-11-25.
const MCPSDKPackage = "@modelcontextprotocol/sdk@1.32.2"

// npmPackage is a test-only package installed from the npm registry into a
// prefix of its own, once per machine, on first use.
type npmPackage struct {
	spec      string // name@version
	prefixEnv string // names the prefix; default $XDG_CACHE_HOME/rea-test/<cacheName>
	cacheName string

	once   sync.Once
	prefix string
	err    error
}

var (
	asarPackage   = &npmPackage{spec: ASARPackage, prefixEnv: "REA_ELECTRON_ASAR_PREFIX", cacheName: "electron-asar"}
	mcpSDKPackage = &npmPackage{spec: MCPSDKPackage, prefixEnv: "REA_MCP_SDK_PREFIX", cacheName: "mcp-sdk"}
)

// installed returns the npm prefix holding the package, installing it first
// unless the prefix already holds the pinned version. A failure is found
// once and then reported to every caller.
func (p *npmPackage) installed() (string, error) {
	p.once.Do(func() { p.prefix, p.err = p.install() })
	return p.prefix, p.err
}

func (p *npmPackage) install() (string, error) {
	at := strings.LastIndex(p.spec, "@")
	name, version := p.spec[:at], p.spec[at+1:]
	prefix := os.Getenv(p.prefixEnv)
	if prefix == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("no place to install %s: %w", p.spec, err)
		}
		prefix = filepath.Join(c, "rea-test", p.cacheName)
	}
	dir := filepath.Join(prefix, "node_modules", filepath.FromSlash(name))
	if err := os.MkdirAll(prefix, 0o755); err != nil {
		return "", fmt.Errorf("installing %s: %w", p.spec, err)
	}
	// Test binaries of several packages run at once and share the prefix;
	// the lock keeps two npm installs from writing it together.
	unlock, err := lockFile(filepath.Join(prefix, ".rea-install.lock"), true)
	if err != nil {
		return "", fmt.Errorf("installing %s: %w", p.spec, err)
	}
	defer unlock()
	if installedVersion(dir) == version {
		return prefix, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", errors.New("npm is not installed and " + p.spec + " is not under " + prefix +
			" (" + p.prefixEnv + "); install npm to run this test")
	}
	out, err := exec.Command(npm, "install", "--prefix", prefix, "--no-audit", "--no-fund", "--no-save",
		"--loglevel=error", p.spec).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("npm install %s: %w: %s", p.spec, err, out)
	}
	if got := installedVersion(dir); got != version {
		return "", fmt.Errorf("npm install %s left version %q in %s", p.spec, got, dir)
	}
	return prefix, nil
}

// installedVersion is the version in dir/package.json, or "".
func installedVersion(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return ""
	}
	var m struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(b, &m) != nil {
		return ""
	}
	return m.Version
}

// ASARPacker returns the path of the @electron/asar command line tool (a
// node script, so node is needed too): REA_ASAR when set, else the copy under
// REA_ELECTRON_ASAR_PREFIX (default $XDG_CACHE_HOME/rea-test/electron-asar),
// which npm installs there on first use. .ci/run sets both variables.
func ASARPacker(t testing.TB) string {
	t.Helper()
	Need(t, "node")
	if p := os.Getenv("REA_ASAR"); p != "" {
		if _, err := os.Stat(p); err != nil {
			SkipOrFail(t, fmt.Sprintf("REA_ASAR names %s (%s), which is absent: %v", p, ASARPackage, err))
		}
		return p
	}
	prefix, err := asarPackage.installed()
	if err != nil {
		SkipOrFail(t, err.Error())
	}
	return filepath.Join(prefix, "node_modules", ".bin", "asar")
}

// MCPSDK returns the directory of the installed @modelcontextprotocol/sdk
// package (its package.json is there), for a node script to import from:
// the copy under REA_MCP_SDK_PREFIX (default
// $XDG_CACHE_HOME/rea-test/mcp-sdk), which npm installs there on first use.
// .ci/run sets the variable and installs it.
func MCPSDK(t testing.TB) string {
	t.Helper()
	Need(t, "node")
	prefix, err := mcpSDKPackage.installed()
	if err != nil {
		SkipOrFail(t, err.Error())
	}
	return filepath.Join(prefix, "node_modules", "@modelcontextprotocol", "sdk")
}

var (
	reaOnce sync.Once
	reaPath string
	reaErr  error
)

// Rea builds cmd/rea once per test binary and returns its path with symlinks
// evaluated (the form a client registration must name to be aligned).
func Rea(t testing.TB) string {
	t.Helper()
	reaOnce.Do(func() {
		dir, err := os.MkdirTemp("", "rea-test-bin")
		if err != nil {
			reaErr = err
			return
		}
		out := filepath.Join(dir, "rea")
		if b, err := exec.Command("go", "build", "-o", out, "github.com/rea-re/rea/cmd/rea").CombinedOutput(); err != nil {
			reaErr = fmt.Errorf("go build: %v\n%s", err, b)
			return
		}
		reaPath, reaErr = filepath.EvalSymlinks(out)
	})
	if reaErr != nil {
		t.Fatal(reaErr)
	}
	return reaPath
}

// BuildCache runs each distinct fixture build once per test binary. A build
// is named by a key that holds everything its output depends on (the tool,
// its flags and environment, the source bytes); the first test to ask builds
// it in a directory of its own below Dir, later ones (concurrent ones wait)
// get the same answer. Dir belongs to the caller, who removes it, typically
// in TestMain. The zero value with Dir set is ready to use.
type BuildCache struct {
	Dir string

	mu     sync.Mutex
	builds map[string]*cachedBuild
}

type cachedBuild struct {
	once       sync.Once
	path, skip string
	err        error
}

// Build returns the output of build for key, running build the first time
// only. build gets a fresh directory and returns the output's path, or a
// reason to skip (a missing tool) or an error; those are remembered too.
func (c *BuildCache) Build(key []string, build func(dir string) (path, skip string, err error)) (string, string, error) {
	h := sha256.New()
	for _, k := range key {
		fmt.Fprintf(h, "%d:%s;", len(k), k) // length-prefixed: no two keys collide by concatenation
	}
	id := hex.EncodeToString(h.Sum(nil))[:24]
	c.mu.Lock()
	if c.builds == nil {
		c.builds = map[string]*cachedBuild{}
	}
	b := c.builds[id]
	if b == nil {
		b = &cachedBuild{}
		c.builds[id] = b
	}
	c.mu.Unlock()
	b.once.Do(func() {
		dir := filepath.Join(c.Dir, id)
		if b.err = os.MkdirAll(dir, 0o755); b.err == nil {
			b.path, b.skip, b.err = build(dir)
		}
	})
	return b.path, b.skip, b.err
}

// BuildC writes source to dir/name.c and compiles it with gcc and flags into
// dir/name, which it returns. It does not touch a testing.TB so that callers
// can build once per test binary under a sync.Once.
func BuildC(gcc, dir, name, source string, flags ...string) (string, error) {
	src := filepath.Join(dir, name+".c")
	if err := os.WriteFile(src, []byte(source), 0o600); err != nil {
		return "", err
	}
	out := filepath.Join(dir, name)
	args := append(append([]string{}, flags...), "-o", out, src)
	if b, err := exec.Command(gcc, args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("gcc %s: %w\n%s", name, err, b)
	}
	return out, nil
}

// CompileC is BuildC for one test: it needs gcc (see Need) and fails the
// test when the fixture does not compile.
func CompileC(t testing.TB, dir, name, source string, flags ...string) string {
	t.Helper()
	out, err := BuildC(Need(t, "gcc"), dir, name, source, flags...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// EnvPostgresURL names the PostgreSQL database the tests of the team ledger
// (CONTRACTS.md §17) may create schemas in; `.ci/postgres.sh start DIR`
// starts a private cluster and prints it, and .ci/run exports it.
const EnvPostgresURL = "REA_TEST_POSTGRES_URL"

// EnvPostgresRestart names the command that restarts the test cluster
// (`pg_ctl restart -m fast`); `.ci/postgres.sh start DIR` prints it.
const EnvPostgresRestart = "REA_TEST_POSTGRES_RESTART"

// PostgresURL returns the URL of a new, empty schema of the test database
// (search_path set in the URL), dropped when the test ends. It skips the
// test (fails it under RequireAll) when EnvPostgresURL is unset. The URL
// carries the test cluster's password: never print it.
//
// Every package's tests share the one cluster and go test runs packages at
// the same time, so a test that restarts the server would cut another
// package's connections mid-test. A test holds a shared lock on a file
// named for the cluster from here to its end; PostgresRestart holds it
// exclusively.
func PostgresURL(t testing.TB) string {
	t.Helper()
	return postgresSchema(t, false)
}

// PostgresRestart is PostgresURL for a test that restarts the server: it
// waits until no other test (of any process) uses the cluster and keeps
// them waiting until it ends, and it returns the restart command too. It
// skips (fails under RequireAll) when either variable is unset.
func PostgresRestart(t testing.TB) (dbURL, restart string) {
	t.Helper()
	restart = os.Getenv(EnvPostgresRestart)
	if restart == "" {
		SkipOrFail(t, EnvPostgresRestart+" is not set (.ci/postgres.sh start prints it)")
	}
	return postgresSchema(t, true), restart
}

func postgresSchema(t testing.TB, exclusive bool) string {
	t.Helper()
	base := os.Getenv(EnvPostgresURL)
	if base == "" {
		SkipOrFail(t, EnvPostgresURL+" is not set: start a PostgreSQL test cluster with "+
			"`eval \"$(.ci/postgres.sh start /tmp/rea-pg)\"` (Debian package postgresql) to run the PostgreSQL ledger tests")
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s does not parse as a URL", EnvPostgresURL)
	}
	// The lock file is named by a digest of the URL (never the URL: it
	// holds the password).
	sum := sha256.Sum256([]byte(base))
	unlock, err := lockFile(filepath.Join(os.TempDir(), "rea-test-postgres-"+hex.EncodeToString(sum[:8])+".lock"), exclusive)
	if err != nil {
		t.Fatalf("lock the PostgreSQL test cluster: %v", err)
	}
	t.Cleanup(unlock) // registered first: runs after the schema is dropped
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	schema := "rea_t_" + hex.EncodeToString(rnd[:])
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("%s: %v", EnvPostgresURL, err)
	}
	if _, err := db.Exec(`CREATE SCHEMA ` + schema); err != nil {
		db.Close()
		t.Fatalf("create schema in the %s database: %v", EnvPostgresURL, err)
	}
	t.Cleanup(func() {
		if _, err := db.Exec(`DROP SCHEMA ` + schema + ` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
		db.Close()
	})
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// compareArches maps a CompareFixture architecture to its C compiler and
// strip tool.
var compareArches = map[string][2]string{
	"x86_64": {"gcc", "strip"},
	"arm64":  {"aarch64-linux-gnu-gcc", "aarch64-linux-gnu-strip"},
}

// CompareFixtureDir is the directory of the compare_binaries ground-truth
// fixture: fixture_v1.c, fixture_v2.c and edits.json (the known edit list).
func CompareFixtureDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "engine", "compare", "testdata")
}

// CompareEdits is the compare_binaries fixture's known edit list
// (edits.json): the procedures whose bodies changed, those added and
// removed (each sorted), and the renamed ones (old name → new).
type CompareEdits struct {
	Changed []string          `json:"changed"`
	Added   []string          `json:"added"`
	Removed []string          `json:"removed"`
	Renamed map[string]string `json:"renamed"`
}

// CompareFixtureEdits reads the fixture's edit list.
func CompareFixtureEdits(t testing.TB) CompareEdits {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(CompareFixtureDir(), "edits.json"))
	if err != nil {
		t.Fatal(err)
	}
	var e CompareEdits
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][]string{e.Changed, e.Added, e.Removed} {
		slices.Sort(l)
	}
	return e
}

// CompareFixture builds both versions of the compare_binaries fixture for
// arch ("x86_64" or "arm64") at opt ("-O0", "-O2"), with symbols or
// stripped, in a directory of the test's, and returns their paths. A
// missing compiler skips the test (fails it under RequireAll).
func CompareFixture(t testing.TB, arch, opt string, stripped bool) (old, new string) {
	t.Helper()
	dir := t.TempDir()
	return CompareFixtureBuild(t, 1, arch, opt, stripped, dir), CompareFixtureBuild(t, 2, arch, opt, stripped, dir)
}

// CompareFixtureBuild builds one version (1 or 2) of the fixture with the
// compiler run in dir (the source copied there, so that -g records dir as
// the compilation directory and two builds in different directories differ
// in their build-id only) and returns the output's path.
func CompareFixtureBuild(t testing.TB, version int, arch, opt string, stripped bool, dir string, flags ...string) string {
	t.Helper()
	tools, ok := compareArches[arch]
	if !ok {
		t.Fatalf("CompareFixtureBuild: unknown architecture %q", arch)
	}
	cc := Need(t, tools[0])
	name := fmt.Sprintf("fixture_v%d", version)
	src, err := os.ReadFile(filepath.Join(CompareFixtureDir(), name+".c"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".c"), src, 0o600); err != nil {
		t.Fatal(err)
	}
	out := fmt.Sprintf("%s-%s%s", name, arch, opt)
	args := append(append([]string{opt}, flags...), "-o", out, name+".c")
	cmd := exec.Command(cc, args...)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", cc, args, err, b)
	}
	if stripped {
		st := Need(t, tools[1])
		if b, err := exec.Command(st, "-o", filepath.Join(dir, out+".stripped"), filepath.Join(dir, out)).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", st, err, b)
		}
		out += ".stripped"
	}
	return filepath.Join(dir, out)
}

// CompareLargePair is two real, large executables of different content
// for the compare_binaries resume and cancellation tests: the files
// REA_COMPARE_LARGE_LEFT and REA_COMPARE_LARGE_RIGHT name (.ci/run sets
// them to two versions of a Debian library, fetched with apt-get
// download), else the Go toolchain's vet and fix (9 MB each, ~7,000
// procedures, sharing most of their packages), which every machine that
// runs the tests has.
func CompareLargePair(t testing.TB) (left, right string) {
	t.Helper()
	if l, r := os.Getenv("REA_COMPARE_LARGE_LEFT"), os.Getenv("REA_COMPARE_LARGE_RIGHT"); l != "" || r != "" {
		for _, p := range []string{l, r} {
			if _, err := os.Stat(p); err != nil {
				SkipOrFail(t, fmt.Sprintf("REA_COMPARE_LARGE_LEFT/RIGHT: %q is not readable: %v", p, err))
			}
		}
		return l, r
	}
	out, err := exec.Command(Need(t, "go"), "env", "GOTOOLDIR").Output()
	if err != nil {
		t.Fatalf("go env GOTOOLDIR: %v", err)
	}
	dir := strings.TrimSpace(string(out))
	left, right = filepath.Join(dir, "vet"), filepath.Join(dir, "fix")
	for _, p := range []string{left, right} {
		if _, err := os.Stat(p); err != nil {
			SkipOrFail(t, "the Go toolchain's "+filepath.Base(p)+" is not in "+dir)
		}
	}
	return left, right
}
