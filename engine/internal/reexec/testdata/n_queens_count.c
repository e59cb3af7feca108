int n_queens_count(int n, int row, unsigned cols, unsigned d1, unsigned d2) {
	if (row == n)
		return 1;
	int count = 0;
	for (int c = 0; c < n; c++) {
		unsigned a = 1u << c, b = 1u << (row + c), d = 1u << (row - c + n - 1);
		if ((cols & a) || (d1 & b) || (d2 & d))
			continue;
		count += n_queens_count(n, row + 1, cols | a, d1 | b, d2 | d);
	}
	return count;
}
