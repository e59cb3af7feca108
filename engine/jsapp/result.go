package jsapp

import "encoding/json"

// Format is how the input was read.
type Format string

const (
	FormatAuto      Format = "auto"
	FormatASAR      Format = "asar"
	FormatDirectory Format = "directory"
)

// Result is the full (detail:"full") result of CONTRACTS.md §11.3.
type Result struct {
	SchemaVersion int    `json:"schema_version"`
	InputPath     string `json:"input_path"`
	Format        Format `json:"format"`
	RootSHA256    string `json:"root_sha256"`
	// InventoryManifestID is left empty by Analyze: the manifest id is derived
	// from engine/artifact's inventory graph, which the caller owns.
	InventoryManifestID string     `json:"inventory_manifest_id"`
	Package             Package    `json:"package"`
	Electron            Electron   `json:"electron"`
	Summary             Summary    `json:"summary"`
	Statistics          Statistics `json:"statistics"`
	Limitations         []string   `json:"limitations"`
}

// Package describes the application's package.json.
type Package struct {
	Name         *string `json:"name"`
	Version      *string `json:"version"`
	Main         *string `json:"main"`
	MainResolved *string `json:"main_resolved"`
}

// Electron holds the recognized Electron boundary constructs.
type Electron struct {
	BrowserWindows     []BrowserWindow     `json:"browser_windows"`
	PreloadEntrypoints []PreloadEntrypoint `json:"preload_entrypoints"`
	ContextBridge      []ContextBridgeAPI  `json:"context_bridge"`
	IPC                IPC                 `json:"ipc"`
	UtilityProcesses   []UtilityProcess    `json:"utility_processes"`
	NativeAddons       []NativeAddon       `json:"native_addons"`
}

// Flag is a webPreferences value: literal true or false, "dynamic" for any
// other expression, "absent" when the key is missing.
type Flag string

const (
	FlagTrue    Flag = "true"
	FlagFalse   Flag = "false"
	FlagDynamic Flag = "dynamic"
	FlagAbsent  Flag = "absent"
)

// MarshalJSON renders true and false as JSON booleans, the rest as strings.
func (f Flag) MarshalJSON() ([]byte, error) {
	switch f {
	case FlagTrue, FlagFalse:
		return []byte(f), nil
	}
	return json.Marshal(string(f))
}

// UnmarshalJSON accepts what MarshalJSON writes.
func (f *Flag) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "true", "false":
		*f = Flag(b)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*f = Flag(s)
	return nil
}

// WebPreferences are the security-relevant flags of one window.
type WebPreferences struct {
	NodeIntegration  Flag `json:"nodeIntegration"`
	ContextIsolation Flag `json:"contextIsolation"`
	Sandbox          Flag `json:"sandbox"`
	WebviewTag       Flag `json:"webviewTag"`
}

// BrowserWindow is one `new BrowserWindow(...)`.
type BrowserWindow struct {
	File           string         `json:"file"`
	Line           int            `json:"line"`
	Column         int            `json:"column"`
	WebPreferences WebPreferences `json:"web_preferences"`
	// Preload is the logical path of a recognized preload expression.
	Preload *string `json:"preload"`
}

// Reference locates a use.
type Reference struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

// PreloadEntrypoint is one distinct preload script.
type PreloadEntrypoint struct {
	Path           string      `json:"path"`
	Resolved       bool        `json:"resolved"`
	ReferencedFrom []Reference `json:"referenced_from"`
}

// ContextBridgeAPI is one contextBridge.exposeInMainWorld call.
type ContextBridgeAPI struct {
	File    string   `json:"file"`
	Line    int      `json:"line"`
	APIKey  *string  `json:"api_key"`
	Members []string `json:"members"`
	Dynamic bool     `json:"dynamic"`
}

// IPC is the inter-process messaging surface.
type IPC struct {
	MainHandlers             []IPCOperation     `json:"main_handlers"`
	RendererTransmissions    []IPCOperation     `json:"renderer_transmissions"`
	RendererListeners        []IPCOperation     `json:"renderer_listeners"`
	DynamicChannelOperations []DynamicOperation `json:"dynamic_channel_operations"`
	Pairing                  []ChannelPairing   `json:"pairing"`
}

// IPCOperation is one member call with a literal channel.
type IPCOperation struct {
	Channel string `json:"channel"`
	Method  string `json:"method"`
	File    string `json:"file"`
	Line    int    `json:"line"`
}

// DynamicOperation is one member call whose channel is not a literal.
type DynamicOperation struct {
	Method string `json:"method"`
	File   string `json:"file"`
	Line   int    `json:"line"`
}

// Pairing statuses.
const (
	Paired    = "paired"
	Ambiguous = "ambiguous"
	Unpaired  = "unpaired"
)

// ChannelPairing relates one literal channel's transmissions and handlers.
type ChannelPairing struct {
	Channel       string `json:"channel"`
	Status        string `json:"status"`
	Transmissions int    `json:"transmissions"`
	Handlers      int    `json:"handlers"`
}

// UtilityProcess is one utilityProcess.fork call.
type UtilityProcess struct {
	File       string  `json:"file"`
	Line       int     `json:"line"`
	Entrypoint *string `json:"entrypoint"`
	Resolved   bool    `json:"resolved"`
}

// NativeAddon is one file ending in .node.
type NativeAddon struct {
	Path string `json:"path"`
}

// Summary counts the Electron lists.
type Summary struct {
	BrowserWindows           int `json:"browser_windows"`
	ExplicitWebPreferences   int `json:"explicit_web_preferences"`
	PreloadEntrypoints       int `json:"preload_entrypoints"`
	ContextBridgeAPIs        int `json:"context_bridge_apis"`
	ExposedAPIMembers        int `json:"exposed_api_members"`
	IPCLiteralChannels       int `json:"ipc_literal_channels"`
	MainHandlers             int `json:"main_handlers"`
	RendererTransmissions    int `json:"renderer_transmissions"`
	RendererListeners        int `json:"renderer_listeners"`
	DynamicChannelOperations int `json:"dynamic_channel_operations"`
	Paired                   int `json:"paired"`
	Ambiguous                int `json:"ambiguous"`
	Unpaired                 int `json:"unpaired"`
	UtilityProcesses         int `json:"utility_processes"`
	NativeAddons             int `json:"native_addons"`
}

// Statistics says what was read and what was not.
type Statistics struct {
	Entries                 int64    `json:"entries"`
	RelevantFiles           int64    `json:"relevant_files"`
	TextFilesSelected       int64    `json:"text_files_selected"`
	TextBytesRead           int64    `json:"text_bytes_read"`
	OmittedTextFiles        int64    `json:"omitted_text_files"`
	PolicyFilteredTextFiles int64    `json:"policy_filtered_text_files"`
	InvalidUTF8Files        int64    `json:"invalid_utf8_files"`
	ParsedJavaScriptFiles   int64    `json:"parsed_javascript_files"`
	ScannedJavaScriptFiles  int64    `json:"scanned_javascript_files"`
	VisitedASTNodes         int64    `json:"visited_ast_nodes"`
	Findings                int64    `json:"findings"`
	ParseFailures           int64    `json:"parse_failures"`
	TruncatedScopes         []string `json:"truncated_scopes"`
}

// TopItems is how many items of each list the summary projection keeps.
const TopItems = 20

// SummaryResult is the detail:"summary" projection of a Result.
type SummaryResult struct {
	SchemaVersion       int        `json:"schema_version"`
	InputPath           string     `json:"input_path"`
	Format              Format     `json:"format"`
	RootSHA256          string     `json:"root_sha256"`
	InventoryManifestID string     `json:"inventory_manifest_id"`
	Package             Package    `json:"package"`
	Summary             Summary    `json:"summary"`
	Statistics          Statistics `json:"statistics"`
	Limitations         []string   `json:"limitations"`
	Top                 Electron   `json:"top"`
}

// Project returns the detail:"summary" projection: every Electron list cut to
// its first TopItems items.
func (r *Result) Project() SummaryResult {
	e := r.Electron
	top := Electron{
		BrowserWindows:     first(e.BrowserWindows),
		PreloadEntrypoints: first(e.PreloadEntrypoints),
		ContextBridge:      first(e.ContextBridge),
		IPC: IPC{
			MainHandlers:             first(e.IPC.MainHandlers),
			RendererTransmissions:    first(e.IPC.RendererTransmissions),
			RendererListeners:        first(e.IPC.RendererListeners),
			DynamicChannelOperations: first(e.IPC.DynamicChannelOperations),
			Pairing:                  first(e.IPC.Pairing),
		},
		UtilityProcesses: first(e.UtilityProcesses),
		NativeAddons:     first(e.NativeAddons),
	}
	return SummaryResult{
		SchemaVersion: r.SchemaVersion, InputPath: r.InputPath, Format: r.Format,
		RootSHA256: r.RootSHA256, InventoryManifestID: r.InventoryManifestID,
		Package: r.Package, Summary: r.Summary, Statistics: r.Statistics,
		Limitations: r.Limitations, Top: top,
	}
}

func first[T any](s []T) []T {
	if len(s) > TopItems {
		s = s[:TopItems]
	}
	return append([]T{}, s...)
}
