int histogram_bins(const double *v, int n, double lo, double hi, int *bins, int nbins) {
	int outside = 0;
	for (int b = 0; b < nbins; b++)
		bins[b] = 0;
	for (int i = 0; i < n; i++) {
		if (v[i] < lo || v[i] >= hi) {
			outside++;
			continue;
		}
		int b = (int)((v[i] - lo) / (hi - lo) * nbins);
		if (b >= nbins)
			b = nbins - 1;
		bins[b]++;
	}
	return outside;
}
