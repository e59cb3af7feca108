int merge_sorted(const int *a, int na, const int *b, int nb, int *out) {
	int i = 0, j = 0, k = 0;
	while (i < na && j < nb)
		out[k++] = a[i] <= b[j] ? a[i++] : b[j++];
	while (i < na)
		out[k++] = a[i++];
	while (j < nb)
		out[k++] = b[j++];
	return k;
}
