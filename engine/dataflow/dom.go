package dataflow

// computeDominators sets each block's immediate dominator by Cooper,
// Harvey and Kennedy's "A Simple, Fast Dominance Algorithm" over the
// reverse postorder f.Blocks is kept in, and numbers the dominator tree so
// that dominates is a constant-time interval test.
func computeDominators(f *Func) {
	order := reversePostorder(f)
	// Block numbers in fields, not maps: this runs after every rebuild and
	// every branch folding. A predecessor the walk did not reach is -1.
	for _, b := range order {
		for _, p := range b.Preds {
			p.rpo = -1
		}
	}
	for i, b := range order {
		b.rpo = int32(i)
		b.Idom, b.dom = nil, nil
	}
	if len(order) == 0 {
		return
	}
	entry := order[0]
	entry.Idom = entry
	intersect := func(a, b *Block) *Block {
		for a != b {
			for a.rpo > b.rpo {
				a = a.Idom
			}
			for b.rpo > a.rpo {
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
				if p.rpo < 0 || p.Idom == nil {
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
	// The children lists are carved from one slice, in the order the
	// blocks were appended to them one by one before.
	count := make([]int32, len(order))
	for _, b := range order[1:] {
		if b.Idom != nil {
			count[b.Idom.rpo]++
		}
	}
	kids := make([]*Block, len(order))
	off := int32(0)
	for i, b := range order {
		b.dom = kids[off : off : off+count[i]]
		off += count[i]
	}
	for _, b := range order[1:] {
		if b.Idom != nil {
			b.Idom.dom = append(b.Idom.dom, b)
		}
	}
	for _, b := range order {
		if len(b.dom) == 0 {
			b.dom = nil
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
	// A block is seen when its mark is this walk's: no map per walk.
	f.walks++
	walk := f.walks
	post := make([]*Block, 0, len(f.Blocks))
	var dfs func(b *Block)
	dfs = func(b *Block) {
		b.mark = walk
		for _, s := range b.Succs {
			if s.mark != walk {
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
