int mod_euclid(int a, int m) {
	int r = a % m;
	if (r < 0)
		r += m < 0 ? -m : m;
	return r;
}
