int triangle_kind(int a, int b, int c) {
	if (a <= 0 || b <= 0 || c <= 0)
		return -1;
	if ((long)a + b <= c || (long)a + c <= b || (long)b + c <= a)
		return -1;
	if (a == b && b == c)
		return 3;
	if (a == b || b == c || a == c)
		return 2;
	return 1;
}
