package capture

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/fault"
)

func TestNormalizeDefaults(t *testing.T) {
	r := Request{Executable: "/bin/true", WorkingDirectory: "/tmp", StdinSteps: []Step{Write("x")}}
	if err := r.Normalize(); err != nil {
		t.Fatal(err)
	}
	if r.Terminal != (Terminal{80, 24}) || r.TimeoutMS != 30000 || r.IdleTimeoutMS != 30000 ||
		r.MaxOutputBytes != 1000000 || r.Network != NetworkNone || r.Arguments == nil || r.EnvironmentNames == nil {
		t.Fatalf("defaults not applied: %+v", r)
	}
	b, _ := json.Marshal(r.Parameters())
	want := `{"arguments":[],"environment_names":[],"executable":"/bin/true","idle_timeout_ms":30000,"max_output_bytes":1000000,` +
		`"network":"none","stdin_steps":[{"data":"x","sensitive":false,"type":"write"}],"terminal":{"columns":80,"rows":24},` +
		`"timeout_ms":30000,"working_directory":"/tmp"}`
	if string(b) != want {
		t.Fatalf("parameters\n got %s\nwant %s", b, want)
	}
}

func TestNormalizeRejects(t *testing.T) {
	neg := -1
	big := 300001
	bad := "SIGKILL"
	lit := ""
	for _, c := range []struct {
		name string
		mod  func(*Request)
		path string
	}{
		{"relative executable", func(r *Request) { r.Executable = "true" }, "/executable"},
		{"missing working directory", func(r *Request) { r.WorkingDirectory = "" }, "/working_directory"},
		{"long path", func(r *Request) { r.Executable = "/" + strings.Repeat("a", 4096) }, "/executable"},
		{"too many arguments", func(r *Request) { r.Arguments = make([]string, 257) }, "/arguments"},
		{"bad env name", func(r *Request) { r.EnvironmentNames = []string{"1X"} }, "/environment_names/0"},
		{"TERM", func(r *Request) { r.EnvironmentNames = []string{"TERM"} }, "/environment_names/0"},
		{"run id", func(r *Request) { r.EnvironmentNames = []string{"A", "REA_PROCESS_RUN_ID"} }, "/environment_names/1"},
		{"too many names", func(r *Request) { r.EnvironmentNames = make([]string, 65) }, "/environment_names"},
		{"columns", func(r *Request) { r.Terminal.Columns = 1001 }, "/terminal/columns"},
		{"negative timeout", func(r *Request) { r.TimeoutMS = -5 }, "/timeout_ms"},
		{"idle", func(r *Request) { r.IdleTimeoutMS = big }, "/idle_timeout_ms"},
		{"output", func(r *Request) { r.MaxOutputBytes = 10000001 }, "/max_output_bytes"},
		{"network", func(r *Request) { r.Network = "external" }, "/network"},
		{"step type", func(r *Request) { r.StdinSteps = []Step{{Type: "type"}} }, "/stdin_steps/0/type"},
		{"write without data", func(r *Request) { r.StdinSteps = []Step{{Type: StepWrite}} }, "/stdin_steps/0/data"},
		{"write with ms", func(r *Request) { s := Write("x"); s.MS = &neg; r.StdinSteps = []Step{s} }, "/stdin_steps/0/ms"},
		{"empty literal", func(r *Request) { r.StdinSteps = []Step{{Type: StepWaitOutput, Literal: &lit, TimeoutMS: &big}} }, "/stdin_steps/0/literal"},
		{"wait timeout", func(r *Request) { r.StdinSteps = []Step{WaitOutput("x", big)} }, "/stdin_steps/0/timeout_ms"},
		{"sleep", func(r *Request) { r.StdinSteps = []Step{Sleep(60001)} }, "/stdin_steps/0/ms"},
		{"signal", func(r *Request) { r.StdinSteps = []Step{{Type: StepSignal, Signal: &bad}} }, "/stdin_steps/0/signal"},
		{"long write", func(r *Request) { r.StdinSteps = []Step{Write(strings.Repeat("x", 65537))} }, "/stdin_steps/0/data"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Request{Executable: "/bin/true", WorkingDirectory: "/tmp"}
			c.mod(&r)
			err := r.Normalize()
			fe, ok := err.(*fault.Error)
			if !ok || fe.Code != fault.InvalidRequest {
				t.Fatalf("err = %v, want invalid_request", err)
			}
			found := false
			for _, is := range fe.Details["issues"].([]fault.Issue) {
				found = found || is.Path == c.path
			}
			if !found {
				t.Fatalf("no issue at %s: %+v", c.path, fe.Details["issues"])
			}
		})
	}
}

func TestTranscriptText(t *testing.T) {
	if got := transcriptText([]byte("a\xffb\x1b[1m\xe2\x82")); got != "a\uFFFDb\x1b[1m\uFFFD\uFFFD" {
		t.Fatalf("got %q", got)
	}
}
