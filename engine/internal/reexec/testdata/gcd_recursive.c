long gcd_recursive(long a, long b) {
	if (a < 0)
		a = -a;
	if (b < 0)
		b = -b;
	if (b == 0)
		return a;
	return gcd_recursive(b, a % b);
}
