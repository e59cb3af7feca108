void vec_add_i32(int *dst, const int *a, const int *b, int n) {
	for (int i = 0; i < n; i++)
		dst[i] = a[i] + b[i];
}
