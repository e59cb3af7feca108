package tools

import (
	"context"

	"github.com/rea-re/rea/engine/progress"

	"github.com/rea-re/rea/tools/catalog"
)

// Dependency tools (kind provider, CONTRACTS.md §15.4): a target's
// libraries, and where an import resolves among the open targets.

func dependencyTools() []tool {
	return []tool{
		{catListDependencies, (*Server).listDependencies},
		{catResolveImport, (*Server).resolveImport},
	}
}

// catListDependencies: §15.4. reason says why candidate_path is null
// (not_regular_file, symlink_loop, unreadable, too_large: a path the
// sample names that REA does not read, §0.3);
// imports is the count the format gives per library (decisions, beyond
// §15.4); resolved names the open target that satisfies the dependency.
func catListDependencies() catalog.Spec {
	return catProvider("list_dependencies", "List dependencies",
		"List the libraries the loader would load, in order, and where this host finds each (not via LD_LIBRARY_PATH)."+catalog.SampleText,
		"I", catalog.In(catalog.M{}),
		catalog.List(catalog.OutAll(catalog.M{
			"name":           catalog.String(),
			"kind":           catalog.Enum("needed", "import", "delay_import", "load_dylib", "weak_dylib", "reexport_dylib"),
			"candidate_path": catalog.Nullable(catalog.String()),
			"reason": catalog.Nullable(catalog.Enum("not_found", "not_loadable", "relative_path", "no_host_loader", "api_set",
				"unexpanded_token", "not_regular_file", "symlink_loop", "unreadable", "too_large")),
			"search": catalog.List(catalog.OutAll(catalog.M{"path": catalog.String(), "exists": catalog.Bool(),
				"source": catalog.Enum("rpath", "runpath", "origin", "ld_so_cache", "default", "same_directory", "interpreter")})),
			"imports":  catalog.Nullable(catalog.Count()),
			"resolved": catalog.Nullable(catalog.OutAll(catalog.M{"target_id": catalog.String(), "path": catalog.String()})),
		})))
}

// catResolveImport: §15.4. Exactly one of name and address (enforced by
// the engine; a top-level oneOf is not published, see catalog.Spec.InputUnion).
func catResolveImport() catalog.Spec {
	return catProvider("resolve_import", "Resolve import",
		"Find the open target and procedure defining an import: name (printf@GLIBC_2.2.5, KERNEL32.dll!#12) or stub address."+catalog.SampleText,
		"I", catalog.In(catalog.M{"name": catalog.Str(1, 1024), "address": catalog.AddrIn("")}),
		catalog.OutAll(catalog.M{
			"import": catalog.OutAll(catalog.M{"name": catalog.String(), "version": catalog.Nullable(catalog.String()), "library": catalog.Nullable(catalog.String()),
				"address": catalog.Nullable(catalog.AddrOut())}),
			"resolution": catalog.Nullable(catalog.OutAll(catalog.M{"target_id": catalog.String(), "library_path": catalog.String(),
				"procedure": catalog.OutAll(catalog.M{"address": catalog.AddrOut(), "name": catalog.String()})})),
			"reason": catalog.Nullable(catalog.Enum("library_not_open", "symbol_not_exported", "ambiguous", "not_an_import")),
		}))
}

func (s *Server) listDependencies(ctx context.Context, sess *session, in input, rep progress.Reporter) (any, error) {
	return sess.conn.ListDependencies(ctx, in.target, in.Params, rep)
}

func (s *Server) resolveImport(ctx context.Context, sess *session, in input, rep progress.Reporter) (any, error) {
	return sess.conn.ResolveImport(ctx, in.target, in.Params, rep)
}
