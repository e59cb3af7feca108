int weekday_zeller(int y, int m, int d) {
	if (m < 3) {
		m += 12;
		y -= 1;
	}
	int k = y % 100, j = y / 100;
	int h = (d + 13 * (m + 1) / 5 + k + k / 4 + j / 4 + 5 * j) % 7;
	return (h + 6) % 7;
}
