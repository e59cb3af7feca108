int nested_find_pair(const int *grid, int rows, int cols, int target, int *r_out, int *c_out) {
	for (int r = 0; r < rows; r++) {
		for (int c = 0; c + 1 < cols; c++) {
			if (grid[r * cols + c] + grid[r * cols + c + 1] == target) {
				*r_out = r;
				*c_out = c;
				return 1;
			}
			if (grid[r * cols + c] < 0)
				break;
		}
	}
	return 0;
}
