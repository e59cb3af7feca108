int digit_sum(long long v) {
	int s = 0;
	if (v < 0)
		v = -v;
	do {
		s += (int)(v % 10);
		v /= 10;
	} while (v != 0);
	return s;
}
