int reverse_digits(int v, int *overflow) {
	long long r = 0;
	int neg = v < 0;
	long long x = v;
	if (neg)
		x = -x;
	*overflow = 0;
	while (x > 0) {
		r = r * 10 + x % 10;
		x /= 10;
	}
	if (neg)
		r = -r;
	if (r > 2147483647LL || r < -2147483648LL) {
		*overflow = 1;
		return 0;
	}
	return (int)r;
}
