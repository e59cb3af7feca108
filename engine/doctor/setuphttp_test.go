package doctor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/fault"
)

const (
	httpToken = "3b5e0c1f9a7d4e26b8c0f1a2d3e4f5061728394a5b6c7d8e9f00112233445566"
	httpURL   = "http://127.0.0.1:8765/mcp"
)

// httpFixtures are extra starting entries for `setup --http`: an HTTP entry
// with an old token and other headers (any spelling of Authorization), and
// one already registered.
func httpFixtures(c Client) []struct{ name, body string } {
	if c.Format == TOML {
		return []struct{ name, body string }{
			{"old-token", "[mcp_servers.rea]\nurl = \"" + httpURL + "\"\nenv = { K = \"" + secret + "\" }\n" +
				"[mcp_servers.rea." + c.HeadersKey + "]\nauthorization = \"Bearer old\"\nX-Trace = \"1\"\n"},
			{"registered", "[mcp_servers.other]\ncommand = \"npx\"\n[mcp_servers.rea]\nurl = \"" + httpURL + "\"\n" +
				"[mcp_servers.rea." + c.HeadersKey + "]\nAuthorization = \"Bearer " + httpToken + "\"\n"},
		}
	}
	typ := ""
	if c.HTTPType != "" {
		typ = `"type":"` + c.HTTPType + `",`
	}
	return []struct{ name, body string }{
		{"old-token", `{"mcpServers":{"rea":{"type":"sse","` + c.URLKey + `":"http://127.0.0.1:1/mcp","env":{"K":"` + secret + `"},"` +
			c.HeadersKey + `":{"AUTHORIZATION":"Bearer old","X-Trace":"1"}}}}`},
		{"registered", `{"mcpServers":{"other":{"command":"npx"},"rea":{` + typ + `"` + c.URLKey + `":"` + httpURL + `","` +
			c.HeadersKey + `":{"Authorization":"Bearer ` + httpToken + `"}}}}`},
	}
}

// TestSetupHTTP: from every non-invalid starting state, `setup --http`
// writes an entry naming the URL in the client's key with exactly one
// Authorization header carrying the token, drops the command, keeps every
// other key (other servers, env, other headers), and a second run changes
// nothing; stdio setup turns it back into an aligned command entry.
func TestSetupHTTP(t *testing.T) {
	ctx := context.Background()
	srv := &HTTPServer{URL: httpURL, Token: httpToken}
	for _, c := range Clients("linux") {
		if c.URLKey == "" {
			continue
		}
		starts := []struct{ name, body string }{{name: "no-file"}}
		for _, f := range fixtures[c.Format] {
			if f.state != Invalid && !strings.Contains(f.body, "%LINK%") {
				starts = append(starts, struct{ name, body string }{f.name, f.body})
			}
		}
		starts = append(starts, httpFixtures(c)...)
		for _, f := range starts {
			t.Run(c.ID+"/"+f.name, func(t *testing.T) {
				h := fakeHost(t)
				path := filepath.Join(h.Home, c.File)
				var before []byte
				if f.name != "no-file" {
					writeFixture(t, h, c, f.body)
					before, _ = os.ReadFile(path)
				}
				res, err := Setup(ctx, h, []Client{c}, SetupOptions{Now: fixedNow, HTTP: srv})
				if err != nil {
					t.Fatal(err)
				}
				want := Updated
				switch f.name {
				case "no-file":
					want = Created
				case "registered":
					want = Unchanged
				}
				if res[0].Action != want {
					t.Fatalf("action %s, want %s", res[0].Action, want)
				}
				after, _ := os.ReadFile(path)
				ent := decodeAny(t, c.Format, after)[c.Table].(map[string]any)[ServerKey].(map[string]any)
				hdrs, _ := ent[c.HeadersKey].(map[string]any)
				var auths []string
				for k, v := range hdrs {
					if strings.EqualFold(k, "Authorization") {
						auths = append(auths, k+": "+v.(string))
					}
				}
				if ent[c.URLKey] != httpURL || len(auths) != 1 || auths[0] != "Authorization: Bearer "+httpToken {
					t.Fatalf("entry %v", ent)
				}
				if _, ok := ent["command"]; ok || ent["args"] != nil || (c.HTTPType != "" && ent["type"] != c.HTTPType) ||
					(c.HTTPType == "" && ent["type"] != nil) {
					t.Fatalf("entry %v", ent)
				}
				if f.name == "old-token" && hdrs["X-Trace"] != "1" {
					t.Fatalf("other header dropped: %v", hdrs)
				}
				if before != nil && want != Unchanged {
					keptAllButHTTP(t, c, before, after)
				}
				assertMode(t, path, 0o600)
				if !registersHTTP(c, path, srv) {
					t.Fatal("does not read back as the HTTP server")
				}
				// Idempotent; another token or URL is a change.
				if res, err := Setup(ctx, h, []Client{c}, SetupOptions{Now: fixedNow, HTTP: srv}); err != nil || res[0].Action != Unchanged {
					t.Fatalf("second run: %v %+v", err, res)
				}
				for _, other := range []*HTTPServer{{URL: httpURL, Token: strings.Repeat("f", 64)}, {URL: "http://127.0.0.1:8766/mcp", Token: httpToken}} {
					if registersHTTP(c, path, other) {
						t.Fatalf("registered as %s too", other.URL)
					}
				}
				// Back to the stdio command.
				if _, err := Setup(ctx, h, []Client{c}, SetupOptions{Now: fixedNow}); err != nil {
					t.Fatal(err)
				}
				if got := Classify(h, c); got.State != Aligned || registersHTTP(c, path, srv) {
					t.Fatalf("stdio setup after --http: %+v", got)
				}
			})
		}
	}
}

// keptAllButHTTP compares the documents with the keys setup --http owns
// set aside: the entry's command, args, type, URL keys and Authorization.
func keptAllButHTTP(t *testing.T, c Client, before, after []byte) {
	t.Helper()
	strip := func(m map[string]any) map[string]any {
		tbl, _ := m[c.Table].(map[string]any)
		ent, _ := tbl[ServerKey].(map[string]any)
		if ent != nil {
			for _, k := range append([]string{"command", "args", "type"}, remoteKeys...) {
				delete(ent, k)
			}
			if hdrs, ok := ent[c.HeadersKey].(map[string]any); ok {
				for k := range hdrs {
					if strings.EqualFold(k, "Authorization") {
						delete(hdrs, k)
					}
				}
				if len(hdrs) == 0 {
					delete(ent, c.HeadersKey)
				}
			}
			if len(ent) == 0 {
				delete(tbl, ServerKey)
			}
		}
		if len(tbl) == 0 { // absent, null or emptied
			delete(m, c.Table)
		}
		return m
	}
	if b, a := strip(decodeAny(t, c.Format, before)), strip(decodeAny(t, c.Format, after)); !reflect.DeepEqual(a, b) {
		t.Fatalf("setup --http changed other keys:\nbefore %v\nafter  %v", b, a)
	}
}

// TestSetupHTTPRefusals: a client whose file cannot name an HTTP server
// (Claude Desktop) is invalid_request and nothing is written for any
// client; an invalid file is still never overwritten.
func TestSetupHTTPRefusals(t *testing.T) {
	h := fakeHost(t)
	srv := &HTTPServer{URL: httpURL, Token: httpToken}
	snap := snapshot(t, h.Home)
	_, err := Setup(context.Background(), h, Clients("linux"), SetupOptions{HTTP: srv})
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Code != fault.InvalidRequest || !strings.Contains(fe.Error()+fmtIssues(fe), "claude_desktop") {
		t.Fatalf("err %v", err)
	}
	if !reflect.DeepEqual(snap, snapshot(t, h.Home)) {
		t.Fatal("a refused setup wrote files")
	}
	cursor := Clients("linux")[3]
	writeFixture(t, h, cursor, `{"mcpServers":{"rea":{"command":["x"]}}}`)
	snap = snapshot(t, h.Home)
	if _, err := Setup(context.Background(), h, []Client{cursor}, SetupOptions{HTTP: srv}); !errors.As(err, &fe) || fe.Code != fault.ConfigurationInvalid {
		t.Fatalf("invalid file: %v", err)
	}
	if !reflect.DeepEqual(snap, snapshot(t, h.Home)) {
		t.Fatal("an invalid file was overwritten")
	}
}

func fmtIssues(fe *fault.Error) string {
	var b strings.Builder
	issues, _ := fe.Details["issues"].([]fault.Issue)
	for _, is := range issues {
		b.WriteString(is.Message + "\n")
	}
	return b.String()
}
