// Package cfgtest holds oracles the tests of control-flow code share; it
// is never imported by the product.
package cfgtest

// Reducible decides reducibility by T1/T2 reduction (Hecht and Ullman):
// remove self-loops, merge a node into its only predecessor, until no
// rule applies; the graph is reducible when one node remains. It shares
// nothing with the structurer, whose tests it serves as an oracle.
func Reducible(succs [][]int, entry int) bool {
	n := len(succs)
	succ := make([]map[int]bool, n)
	pred := make([]map[int]bool, n)
	for i := range succ {
		succ[i], pred[i] = map[int]bool{}, map[int]bool{}
	}
	seen := make([]bool, n)
	stack := []int{entry}
	seen[entry] = true
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, y := range succs[x] {
			succ[x][y], pred[y][x] = true, true
			if !seen[y] {
				seen[y] = true
				stack = append(stack, y)
			}
		}
	}
	alive := 0
	for _, s := range seen {
		if s {
			alive++
		}
	}
	for changed := true; changed; {
		changed = false
		for x := 0; x < n; x++ {
			if !seen[x] {
				continue
			}
			if succ[x][x] { // T1
				delete(succ[x], x)
				delete(pred[x], x)
				changed = true
			}
			if x == entry || len(pred[x]) != 1 {
				continue
			}
			var p int // T2: fold x into its only predecessor p
			for q := range pred[x] {
				p = q
			}
			delete(succ[p], x)
			for y := range succ[x] {
				delete(pred[y], x)
				succ[p][y], pred[y][p] = true, true
			}
			seen[x] = false
			alive--
			changed = true
		}
	}
	return alive == 1
}
