package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/rea-re/rea/engine"
	"github.com/rea-re/rea/engine/fault"
	"github.com/rea-re/rea/engine/progress"
	"github.com/rea-re/rea/engine/provider"
)

// triageOperation is the provider operation behind binary_overview's triage
// section (CONTRACTS.md §18); `rea analyze` records it as Evidence of its own.
const triageOperation = "binary_triage"

// triageParts are the report's sections, in print order.
var triageParts = []string{"identity", "toolchain", "hardening", "loading", "anomalies"}

// maxCollapsed is how many Go dependencies the report lists without --all.
const maxCollapsed = 20

// addTriage records the triage of the open target in ov, or why there is
// none (a provider that does not offer it).
func addTriage(ctx context.Context, conn *engine.Connection, ov *overview, rep progress.Reporter) error {
	pub, err := conn.Operate(ctx, "", triageOperation, provider.Params{}, rep)
	var fe *fault.Error
	if errors.As(err, &fe) && fe.Code == fault.CapabilityUnavailable {
		ov.Limitations = append(ov.Limitations, "triage: the bound provider does not offer "+triageOperation)
		return nil
	}
	if err != nil {
		return err
	}
	ov.EvidenceIDs[triageOperation] = pub.Evidence.EvidenceID
	for _, l := range pub.Evidence.Limitations {
		if !slices.Contains(ov.Limitations, l) {
			ov.Limitations = append(ov.Limitations, l)
		}
	}
	ov.Triage = pub.Result
	return nil
}

// printTriage writes the triage as aligned "key  value  (source)" lines
// under one heading per part.
func printTriage(w io.Writer, raw json.RawMessage, evidenceID string, all bool) {
	var tr map[string]map[string]any
	if err := json.Unmarshal(raw, &tr); err != nil {
		return
	}
	fmt.Fprintf(w, "triage        %s\n", evidenceID)
	for _, part := range triageParts {
		facts := tr[part]
		fmt.Fprintf(w, "%s\n", part) // a name from triageParts
		keys := make([]string, 0, len(facts))
		for k := range facts {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			printFact(w, k, facts[k], all)
		}
	}
}

// line prints one fact; every part of it may come from the sample (a
// .comment string, a library name, Go build settings), so each is escaped.
func line(w io.Writer, key, value, source string) {
	value = termText(value)
	if source != "" {
		value += "  (" + termText(source) + ")"
	}
	fmt.Fprintf(w, "  %-22s %s\n", termText(key), value)
}

func printFact(w io.Writer, key string, v any, all bool) {
	m, _ := v.(map[string]any)
	switch key {
	case "go":
		printGo(w, m, all)
		return
	case "compilers":
		list, _ := v.([]any)
		for _, c := range list {
			cm, _ := c.(map[string]any)
			line(w, "compiler", strings.TrimSpace(fmt.Sprintf("%v %v", cm["name"], str(cm["version"]))), str(cm["source"])+": "+str(cm["raw"]))
		}
		return
	case "entropy":
		list, _ := v.([]any)
		for _, e := range list {
			em, _ := e.(map[string]any)
			if em["high"] == true {
				line(w, "high entropy", fmt.Sprintf("%v %.3f bits/byte, %v bytes", em["name"], em["entropy"], em["size"]), str(em["source"]))
			}
		}
		return
	case "dependencies":
		list, _ := v.([]any)
		if len(list) == 0 {
			line(w, "dependencies", "none", "")
		}
		for _, d := range list {
			dm, _ := d.(map[string]any)
			s := str(dm["name"]) + " (" + str(dm["kind"])
			if n, ok := dm["imports"].(float64); ok {
				s += fmt.Sprintf(", %d imports", int(n))
			}
			s += ")"
			switch p, r := str(dm["candidate_path"]), str(dm["reason"]); {
			case p != "":
				s += " -> " + p
			case r != "" && r != "not_found":
				s += " -> " + r
			default:
				s += " -> not found on this host"
			}
			line(w, "dependency", s, str(dm["source"]))
		}
		return
	case "interpreter":
		if _, loading := m["path"]; !loading {
			break // identity's interpreter: a {value, source} fact
		}
		// loading's interpreter: identity names it already; said here
		// only when it was not read.
		if r := str(m["reason"]); r != "" {
			line(w, key, str(m["path"])+" -> not read: "+r, str(m["source"]))
		}
		return
	case "unavailable":
		line(w, "unavailable", str(m["reason"])+": "+str(m["remediation"]), "")
		return
	case "main":
		line(w, key, str(m["address"])+" "+str(m["name"]), str(m["source"]))
		return
	}
	if m == nil {
		line(w, key, render(v), "")
		return
	}
	line(w, key, render(m["value"]), str(m["source"]))
}

func printGo(w io.Writer, m map[string]any, all bool) {
	src := str(m["source"])
	line(w, "go version", str(m["version"]), src)
	if p := str(m["path"]); p != "" {
		line(w, "go path", p, "")
	}
	if mm, ok := m["main"].(map[string]any); ok {
		line(w, "go main module", strings.TrimSpace(str(mm["path"])+" "+str(mm["version"])), "")
	}
	deps, _ := m["deps"].([]any)
	for i, d := range deps {
		if !all && i == maxCollapsed {
			line(w, "go dep", fmt.Sprintf("… %d more (--all lists them)", len(deps)-maxCollapsed), "")
			break
		}
		dm, _ := d.(map[string]any)
		s := strings.TrimSpace(str(dm["path"]) + " " + str(dm["version"]) + " " + str(dm["sum"]))
		if r, ok := dm["replace"].(map[string]any); ok {
			s += " => " + strings.TrimSpace(str(r["path"])+" "+str(r["version"]))
		}
		line(w, "go dep", s, "")
	}
	line(w, "go deps", fmt.Sprint(len(deps)), "")
	sets, _ := m["settings"].([]any)
	for _, s := range sets {
		sm, _ := s.(map[string]any)
		line(w, "go build", str(sm["key"])+"="+str(sm["value"]), "")
	}
}

func str(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// render prints a fact's value: yes/no for booleans, lists joined, objects
// as sorted key=value pairs.
func render(v any) string {
	switch x := v.(type) {
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case []any:
		if len(x) == 0 {
			return "none"
		}
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = render(e)
		}
		return strings.Join(parts, ", ")
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			if l, ok := x[k].([]any); ok && len(l) > 8 {
				parts = append(parts, fmt.Sprintf("%s=[%d]", k, len(l)))
				continue
			}
			parts = append(parts, k+"="+render(x[k]))
		}
		return strings.Join(parts, " ")
	case float64:
		return fmt.Sprint(x)
	default:
		return fmt.Sprint(x)
	}
}
