package builtin

import "github.com/rea-re/rea/engine/provider"

var _ provider.EntryPointer = (*Client)(nil)

// EntryPoint is the analyzed image's entry address, from its headers.
func (c *Client) EntryPoint() (uint64, bool) { return c.ix.img.entry, c.ix.img.hasEntry }
