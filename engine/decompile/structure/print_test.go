package structure

import (
	"fmt"
	"strings"
)

// render prints a tree as C-like text for test messages.
func render(n *Node) string {
	var b strings.Builder
	var walk func(n *Node, d int)
	ind := func(d int) string { return strings.Repeat("  ", d) }
	walk = func(n *Node, d int) {
		if n == nil {
			return
		}
		switch n.Kind {
		case Seq:
			for _, k := range n.Children {
				walk(k, d)
			}
		case Block:
			fmt.Fprintf(&b, "%sB%d;\n", ind(d), n.Node)
		case If:
			fmt.Fprintf(&b, "%sif (%s) {\n", ind(d), cond(n.Cond))
			walk(n.Children[0], d+1)
			if len(n.Children) > 1 && n.Children[1] != nil {
				fmt.Fprintf(&b, "%s} else {\n", ind(d))
				walk(n.Children[1], d+1)
			}
			fmt.Fprintf(&b, "%s}\n", ind(d))
		case While:
			fmt.Fprintf(&b, "%swhile (%s) {\n", ind(d), cond(n.Cond))
			walk(n.Children[0], d+1)
			fmt.Fprintf(&b, "%s}\n", ind(d))
		case DoWhile:
			fmt.Fprintf(&b, "%sdo {\n", ind(d))
			walk(n.Children[0], d+1)
			fmt.Fprintf(&b, "%s} while (%s);\n", ind(d), cond(n.Cond))
		case Loop:
			if n.Once {
				fmt.Fprintf(&b, "%sdo {\n", ind(d))
				walk(n.Children[0], d+1)
				fmt.Fprintf(&b, "%s} while (0);\n", ind(d))
				return
			}
			fmt.Fprintf(&b, "%sfor (;;) {\n", ind(d))
			walk(n.Children[0], d+1)
			fmt.Fprintf(&b, "%s}\n", ind(d))
		case Switch:
			fmt.Fprintf(&b, "%sswitch (B%d) {\n", ind(d), n.Node)
			for _, c := range n.Cases {
				if len(c.Succs) == 0 {
					fmt.Fprintf(&b, "%sdefault:\n", ind(d))
				}
				for _, i := range c.Succs {
					fmt.Fprintf(&b, "%scase %d:\n", ind(d), i)
				}
				walk(c.Body, d+1)
			}
			fmt.Fprintf(&b, "%s}\n", ind(d))
		case Break:
			fmt.Fprintf(&b, "%sbreak;\n", ind(d))
		case Continue:
			fmt.Fprintf(&b, "%scontinue;\n", ind(d))
		case Goto:
			fmt.Fprintf(&b, "%sgoto L%d;\n", ind(d), n.Node)
		case Label:
			fmt.Fprintf(&b, "L%d:\n", n.Node)
		}
	}
	walk(n, 0)
	return b.String()
}

func cond(c *Cond) string {
	if c == nil {
		return "?"
	}
	switch c.Op {
	case And:
		return "(" + cond(c.X) + " && " + cond(c.Y) + ")"
	case Or:
		return "(" + cond(c.X) + " || " + cond(c.Y) + ")"
	}
	if c.Negate {
		return fmt.Sprintf("!c%d", c.Node)
	}
	return fmt.Sprintf("c%d", c.Node)
}
