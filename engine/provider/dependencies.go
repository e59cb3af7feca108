package provider

// The list_dependencies result (CONTRACTS.md §15) and the program
// interpreter triage's loading part reports.

// Dependency is one list_dependencies item.
type Dependency struct {
	Name          string       `json:"name"`
	Kind          string       `json:"kind"` // needed | import | delay_import | load_dylib | weak_dylib | reexport_dylib
	CandidatePath *string      `json:"candidate_path"`
	Reason        *string      `json:"reason"` // why candidate_path is null (depReason*); null when it is not
	Search        []SearchStep `json:"search"`
	Imports       *int         `json:"imports"` // symbols imported from it; null when the format does not say
	// Resolved is always null while a connection holds one target: target
	// handles (CONTRACTS.md §15.1) fill it with the open target whose
	// soname, file name or install name equals Name.
	Resolved *Resolved `json:"resolved"`
}

// SearchStep is one place the loader would look, in its order.
type SearchStep struct {
	Path   string `json:"path"`
	Source string `json:"source"` // rpath | runpath | origin | ld_so_cache | default | same_directory | interpreter
	Exists bool   `json:"exists"`
}

// Resolved is the open target that satisfies a dependency (§15.4).
type Resolved struct {
	TargetID string `json:"target_id"`
	Path     string `json:"path"`
}

// Interpreter is the program interpreter an ELF image names (PT_INTERP),
// for triage's loading part: reason says why it was not read (a
// NamedPathError's reason, or not_loadable), null when it was.
type Interpreter struct {
	Path   string  `json:"path"`
	Reason *string `json:"reason"`
	Source string  `json:"source"`
}
