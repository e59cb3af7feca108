int clamp_i32(int v, int lo, int hi) {
	if (lo > hi) {
		int t = lo;
		lo = hi;
		hi = t;
	}
	if (v < lo)
		return lo;
	if (v > hi)
		return hi;
	return v;
}
