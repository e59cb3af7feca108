void array_prefix_sums(const int *in, long *out, int n) {
	long s = 0;
	for (int i = 0; i < n; i++) {
		s += in[i];
		out[i] = s;
	}
}
