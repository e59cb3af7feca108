package provider

// The binary_triage result (CONTRACTS.md §18): parts of named Facts, and the
// values some facts hold.

// Fact is one triage fact and where it came from.
type Fact struct {
	Value  any    `json:"value"`
	Source string `json:"source"`
}

// Triage is the binary_triage result. Each part is a set of named facts (or
// lists of them); the parts are maps so a format adds only what it has.
type Triage struct {
	Identity  map[string]any `json:"identity"`
	Toolchain map[string]any `json:"toolchain"`
	Hardening map[string]any `json:"hardening"`
	Loading   map[string]any `json:"loading"`
	Anomalies map[string]any `json:"anomalies"`
}

// LoadingItem is one dependency in triage's loading part: list_dependencies'
// item (Dependency) reduced to what triage reports, with where it was read.
type LoadingItem struct {
	Name          string  `json:"name"`
	Kind          string  `json:"kind"`
	CandidatePath *string `json:"candidate_path"`
	// Reason is list_dependencies' reason: why candidate_path is null.
	Reason  *string `json:"reason"`
	Imports *int    `json:"imports"`
	Source  string  `json:"source"`
}

// MainFact is identity.main: {address, name, source}.
type MainFact struct {
	Address string `json:"address"`
	Name    string `json:"name"`
	Source  string `json:"source"`
}

// SectionEntropy is one anomalies.entropy item.
type SectionEntropy struct {
	Name    string  `json:"name"`
	Size    uint64  `json:"size"`
	Entropy float64 `json:"entropy"` // bits per byte, 3 decimals
	Sampled uint64  `json:"sampled"` // bytes read: all, or evenly spaced blocks of a large section
	High    bool    `json:"high"`
	Source  string  `json:"source"`
}

// Compiler is one toolchain.compilers item, parsed from an identification
// string such as .comment's.
type Compiler struct {
	Name    string `json:"name"` // gcc, clang, rustc, lld, ld, unknown
	Version string `json:"version,omitempty"`
	Raw     string `json:"raw"`
	Source  string `json:"source"`
}

// CodeSignature is hardening.code_signature of a Mach-O.
type CodeSignature struct {
	Present           bool   `json:"present"`
	Flags             uint32 `json:"flags"`
	Adhoc             bool   `json:"adhoc"`
	LinkerSigned      bool   `json:"linker_signed"`
	HardenedRuntime   bool   `json:"hardened_runtime"`
	LibraryValidation bool   `json:"library_validation"`
	Verified          bool   `json:"verified"` // always false: validity is not checked
}

// Packer is anomalies.packer: a packer or protector whose signature the file
// carries. Every signature is a heuristic (a packer's marks can be forged or
// removed), so the fact's source is always "heuristic:packer-signature" and
// Signatures says which marks matched.
type Packer struct {
	Name       string   `json:"name"`
	Version    string   `json:"version,omitempty"` // UPX's release, from its "$Id: UPX x.yy" or "x.yy\0UPX!" marks
	Signatures []string `json:"signatures"`
}

// CodeView is a PE debug directory's RSDS record: the PDB's GUID, age and
// path, the build id a symbol server indexes by.
type CodeView struct {
	GUID string `json:"guid"` // canonical order (Data1..3 little-endian in the file), no dashes, as objdump prints it
	Age  uint32 `json:"age"`
	PDB  string `json:"pdb"`
}

// RichEntry is one entry of a PE Rich header: the tool (product id and
// build) that produced some object files of the link, and how many.
type RichEntry struct {
	Product uint16 `json:"product"`
	Build   uint16 `json:"build"`
	Count   uint32 `json:"count"`
}

// RustToolchain is toolchain.rustc: what the panic-location strings of a
// Rust binary say about the rustc that built its standard library. Official
// builds remap the library's sources to /rustc/<commit-hash>/library/...;
// distribution builds keep their source directory, such as Debian's
// /usr/src/rustc-<version>/library/... Both survive stripping (they are
// data the panics print), and both are heuristics: a string, not a header.
type RustToolchain struct {
	Commit  string `json:"commit,omitempty"`  // the 40-hex commit hash (`rustc -vV` commit-hash)
	Version string `json:"version,omitempty"` // the release (`rustc -vV` release)
}

// GoModule is one module of the build info.
type GoModule struct {
	Path    string    `json:"path"`
	Version string    `json:"version"`
	Sum     string    `json:"sum,omitempty"`
	Replace *GoModule `json:"replace,omitempty"`
}

// GoSetting is one build setting (key=value).
type GoSetting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// GoBuildInfo is toolchain.go.
type GoBuildInfo struct {
	Version  string      `json:"version"`
	Path     string      `json:"path,omitempty"`
	Main     *GoModule   `json:"main,omitempty"`
	Deps     []GoModule  `json:"deps"`
	Settings []GoSetting `json:"settings"`
	Source   string      `json:"source"`
}
