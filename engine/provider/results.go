package provider

// The normalized results of the listing, naming and procedure operations
// (ops.go names which operation answers which). Their JSON is the contract:
// Evidence records them, so a field or tag changes only with CONTRACTS.md.

// Segment is one list_segments item.
type Segment struct {
	Name       string    `json:"name"`
	Start      string    `json:"start"`
	End        string    `json:"end"`
	Readable   bool      `json:"readable"`
	Writable   bool      `json:"writable"`
	Executable *bool     `json:"executable"`
	Sections   []Section `json:"sections"`
}

// Section is a section within a Segment.
type Section struct {
	Name       string `json:"name"`
	Start      string `json:"start"`
	End        string `json:"end"`
	Readable   bool   `json:"readable"`
	Writable   bool   `json:"writable"`
	Executable bool   `json:"executable"`
}

// ProcedureItem is one list_procedures item.
type ProcedureItem struct {
	Address   string        `json:"address"`
	Value     string        `json:"value"`
	Aliases   []string      `json:"aliases"` // the other names, sorted, never nil
	Procedure ProcedureInfo `json:"procedure"`
}

// ProcedureInfo classifies a procedure.
type ProcedureInfo struct {
	External    bool    `json:"external"`
	Thunk       bool    `json:"thunk"`
	ThunkTarget *string `json:"thunk_target"`
}

// NameItem is one list_names item.
type NameItem struct {
	Address string     `json:"address"`
	Value   string     `json:"value"`
	Symbol  SymbolInfo `json:"symbol"`
}

// SymbolInfo describes a name.
type SymbolInfo struct {
	Primary  bool   `json:"primary"`
	Dynamic  bool   `json:"dynamic"`
	External bool   `json:"external"`
	Type     string `json:"type"`
	Source   string `json:"source"`
}

// StringItem is one list_strings item.
type StringItem struct {
	Address        string     `json:"address"`
	Value          string     `json:"value"`
	ValueTruncated bool       `json:"value_truncated"`
	String         StringInfo `json:"string"`
}

// StringInfo describes a found string.
type StringInfo struct {
	Encoding    string  `json:"encoding"`
	Termination string  `json:"termination"`
	ByteLength  int     `json:"byte_length"`
	Section     *string `json:"section"`
}

// ProcRef names a procedure by entry address and name.
type ProcRef struct {
	Address string `json:"address"`
	Name    string `json:"name"`
}

// ContainingResult is the resolve_containing_procedure answer.
type ContainingResult struct {
	QueryAddress string   `json:"query_address"`
	Found        bool     `json:"found"`
	Procedure    *ProcRef `json:"procedure"`
	Reason       *string  `json:"reason,omitempty"`
}

// AddressItem is one procedure_callers, procedure_callees or xrefs item: an
// address, its name, and the procedure containing it.
type AddressItem struct {
	Address   string   `json:"address"`
	Name      *string  `json:"name"`
	Procedure *ProcRef `json:"procedure"`
}

// SearchItem is one search match: for search_procedures one per entry
// address, value the name that matched (the display name when it does, else
// the first matching alias) and procedure the procedure with its display
// name; for search_strings the string and the procedure containing it.
type SearchItem struct {
	Address        string   `json:"address"`
	Value          string   `json:"value"`
	ValueTruncated bool     `json:"value_truncated"`
	Procedure      *ProcRef `json:"procedure"`
}

// InstructionItem is one read_function_instructions item.
type InstructionItem struct {
	Address string `json:"address"`
	Bytes   string `json:"bytes"`
	Text    string `json:"text"`
}

// FunctionInstructions is the read_function_instructions answer.
type FunctionInstructions struct {
	Procedure    ProcRef               `json:"procedure"`
	Instructions Page[InstructionItem] `json:"instructions"`
	Limitations  []string              `json:"limitations"`
}

// ProcedureInfoResult is the procedure_info answer.
type ProcedureInfoResult struct {
	Name            string          `json:"name"`
	Entrypoint      string          `json:"entrypoint"`
	Length          uint64          `json:"length"`
	BasicblockCount int             `json:"basicblock_count"`
	Signature       *string         `json:"signature"`
	Prototype       *Prototype      `json:"prototype"`
	Frame           *Frame          `json:"frame"`
	Locals          []LocalVar      `json:"locals"`
	Classification  *Classification `json:"classification"`
	Source          *SourceLoc      `json:"source"`
}

// Prototype is a procedure's prototype (CONTRACTS.md §0.3): Source is
// dwarf, symbol, prototype_table or inferred.
type Prototype struct {
	Return            *ProtoReturn `json:"return"`
	Params            []ProtoParam `json:"params"`
	Variadic          bool         `json:"variadic"`
	CallingConvention string       `json:"calling_convention"`
	Source            string       `json:"source"`
}

// ProtoReturn is a prototype's return value.
type ProtoReturn struct {
	Type    string `json:"type"`
	Storage string `json:"storage"`
}

// ProtoParam is one parameter of a prototype.
type ProtoParam struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Storage string `json:"storage"`
	Source  string `json:"source"`
}

// Frame is a procedure's stack frame: Size in bytes below the stack
// pointer at entry (nil when unknown) and the callee-saved registers it
// stores.
type Frame struct {
	Size           *int64   `json:"size"`
	SavedRegisters []string `json:"saved_registers"`
}

// CallSite is one procedure_calls item (CONTRACTS.md §19).
type CallSite struct {
	Address         string    `json:"address"`
	Callee          CallTo    `json:"callee"`
	Arguments       []CallArg `json:"arguments"`
	ResolvedTargets []string  `json:"resolved_targets"`
}

// References is procedure_references' answer (CONTRACTS.md §19): what a
// procedure's instructions refer to, each list by address and each address
// once. Truncated says the lists were cut at one address to keep the answer
// within ResultBudget: every reference below it is listed, none at or above.
type References struct {
	Strings    []RefString    `json:"strings"`
	Data       []RefData      `json:"data"`
	Imports    []RefImport    `json:"imports"`
	Procedures []RefProcedure `json:"procedures"`
	Truncated  bool           `json:"truncated"`
}

// RefString is a referenced string: its text from its address up to its
// terminator, cut as list_strings cuts values.
type RefString struct {
	Address        string `json:"address"`
	Value          string `json:"value"`
	ValueTruncated bool   `json:"value_truncated"`
}

// RefData is a referenced data address other than a string or an import
// slot: its name (the name at the address, or the covering symbol plus the
// offset) or nil, its section, and how the procedure uses it (Access is
// read, write or address; a store anywhere makes it write, else a load
// read).
type RefData struct {
	Address string  `json:"address"`
	Name    *string `json:"name"`
	Section string  `json:"section"`
	Access  string  `json:"access"`
}

// RefImport is a referenced import: a PLT stub or import thunk called or
// jumped to, or an import slot (GOT, IAT) read, by the import's name.
type RefImport struct {
	Address string `json:"address"`
	Name    string `json:"name"`
}

// RefProcedure is a procedure the procedure calls, jumps to or takes the
// address of.
type RefProcedure struct {
	Address string `json:"address"`
	Name    string `json:"name"`
}

// CallTo is a call's callee: Kind is direct, import, indirect or tail.
type CallTo struct {
	Address *string `json:"address"`
	Name    *string `json:"name"`
	Kind    string  `json:"kind"`
}

// CallArg is one argument of a call.
type CallArg struct {
	Index   int      `json:"index"`
	Storage string   `json:"storage"`
	Value   ArgValue `json:"value"`
}

// ArgValue is an argument's value: Kind is constant, string, address,
// symbol, stack, expression or unknown.
type ArgValue struct {
	Kind    string  `json:"kind"`
	Text    string  `json:"text"`
	Integer *int64  `json:"integer,omitempty"`
	String  *string `json:"string,omitempty"`
	Address *string `json:"address,omitempty"`
}

// LocalVar is one local variable and how it was recovered: Storage is a
// register name, "stack±0x.." from the entry stack pointer, a
// register-relative offset, a static address, "varies" (a location list),
// "none", "constant" or "expression"; Size is nil when unknown.
type LocalVar struct {
	Description string `json:"description"`
	Provenance  string `json:"provenance"`
	Name        string `json:"name"`
	Storage     string `json:"storage"`
	Size        *int64 `json:"size"`
	Type        string `json:"type"`
}

// Classification classifies a procedure.
type Classification struct {
	External    bool    `json:"external"`
	Thunk       bool    `json:"thunk"`
	ThunkTarget *string `json:"thunk_target"`
	Provenance  string  `json:"provenance"`
}

// SourceLoc is a DWARF source position.
type SourceLoc struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

// ReadBytesResult is the read_bytes answer (CONTRACTS.md §21): the bytes at
// address as lowercase hex, the section holding address (null outside every
// section) and the file offset of its byte (null when the byte is
// zero-fill, as in .bss). Which bytes are zero-fill is a limitation.
type ReadBytesResult struct {
	Address    string  `json:"address"`
	Hex        string  `json:"hex"`
	Section    *string `json:"section"`
	FileOffset *int64  `json:"file_offset"`
}

// BytesItem is one search_bytes item: where the pattern matched, the
// section holding the match and the procedure containing it (null outside
// code, or where no procedure is known to contain it).
type BytesItem struct {
	Address   string   `json:"address"`
	Procedure *ProcRef `json:"procedure"`
	Section   string   `json:"section"`
}
