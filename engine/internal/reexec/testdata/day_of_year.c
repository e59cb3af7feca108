int day_of_year(int y, int m, int d) {
	static const unsigned short before[12] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
	if (m < 1 || m > 12 || d < 1 || d > 31)
		return -1;
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return before[m - 1] + d + (leap && m > 2);
}
