int flood_fill(unsigned char *grid, int w, int h, int x, int y, unsigned char from, unsigned char to) {
	if (x < 0 || y < 0 || x >= w || y >= h || from == to)
		return 0;
	if (grid[y * w + x] != from)
		return 0;
	grid[y * w + x] = to;
	return 1 + flood_fill(grid, w, h, x + 1, y, from, to) + flood_fill(grid, w, h, x - 1, y, from, to) +
	       flood_fill(grid, w, h, x, y + 1, from, to) + flood_fill(grid, w, h, x, y - 1, from, to);
}
