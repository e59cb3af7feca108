long div_floor(long a, long b) {
	long q = a / b;
	long r = a % b;
	if (r != 0 && ((r < 0) != (b < 0)))
		q--;
	return q;
}
