package dataflow

// computeDominators sets each block's immediate dominator by Cooper,
// Harvey and Kennedy's "A Simple, Fast Dominance Algorithm" over the
// reverse postorder f.Blocks is kept in, and numbers the dominator tree so
// that dominates is a constant-time interval test.
func computeDominators(f *Func) {
	rpo := make(map[*Block]int, len(f.Blocks))
	order := reversePostorder(f)
	for i, b := range order {
		rpo[b] = i
		b.Idom, b.dom = nil, nil
	}
	if len(order) == 0 {
		return
	}
	entry := order[0]
	entry.Idom = entry
	intersect := func(a, b *Block) *Block {
		for a != b {
			for rpo[a] > rpo[b] {
				a = a.Idom
			}
			for rpo[b] > rpo[a] {
				b = b.Idom
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for _, b := range order[1:] {
			var idom *Block
			for _, p := range b.Preds {
				if _, ok := rpo[p]; !ok || p.Idom == nil {
					continue
				}
				if idom == nil {
					idom = p
				} else {
					idom = intersect(p, idom)
				}
			}
			if idom != b.Idom {
				b.Idom = idom
				changed = true
			}
		}
	}
	for _, b := range order[1:] {
		if b.Idom != nil {
			b.Idom.dom = append(b.Idom.dom, b)
		}
	}
	entry.Idom = nil
	n := 0
	var walk func(b *Block)
	walk = func(b *Block) {
		n++
		b.pre = n
		for _, c := range b.dom {
			walk(c)
		}
		n++
		b.post = n
	}
	walk(entry)
}

// reversePostorder lists the blocks reachable from f.Blocks[0].
func reversePostorder(f *Func) []*Block {
	seen := make(map[*Block]bool, len(f.Blocks))
	var post []*Block
	var dfs func(b *Block)
	dfs = func(b *Block) {
		seen[b] = true
		for _, s := range b.Succs {
			if !seen[s] {
				dfs(s)
			}
		}
		post = append(post, b)
	}
	if len(f.Blocks) > 0 {
		dfs(f.Blocks[0])
	}
	for i, j := 0, len(post)-1; i < j; i, j = i+1, j-1 {
		post[i], post[j] = post[j], post[i]
	}
	return post
}

// dominates reports whether a dominates b (every block dominates itself).
func dominates(a, b *Block) bool { return a.pre <= b.pre && b.post <= a.post }
