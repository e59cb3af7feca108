#include "check.h"
int histogram_bins(const double *v, int n, double lo, double hi, int *bins, int nbins);
int main(void) {
	double v[8] = {0, 0.5, 1, 1.5, 2.5, 3.99, 4, -1};
	int b[4] = {9, 9, 9, 9};
	CHECK(histogram_bins(v, 8, 0, 4, b, 4) == 2);
	CHECK(b[0] == 2 && b[1] == 2 && b[2] == 1 && b[3] == 1);
	CHECK(histogram_bins(v, 0, 0, 4, b, 4) == 0 && b[0] == 0 && b[3] == 0);
	CHECK(histogram_bins(v, 8, 0, 4, b, 1) == 2 && b[0] == 6);
	CHECK(histogram_bins(v, 8, 10, 20, b, 2) == 8 && b[1] == 0);
	return 0;
}
