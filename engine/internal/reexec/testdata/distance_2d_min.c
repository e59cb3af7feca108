#include <math.h>

int distance_2d_min(const double *xs, const double *ys, int n, double *best) {
	int bi = -1, bj = -1;
	double bd = INFINITY;
	for (int i = 0; i < n; i++) {
		for (int j = i + 1; j < n; j++) {
			double dx = xs[i] - xs[j], dy = ys[i] - ys[j];
			double d = sqrt(dx * dx + dy * dy);
			if (d < bd) {
				bd = d;
				bi = i;
				bj = j;
			}
		}
	}
	if (bi < 0)
		return -1;
	*best = bd;
	return bi * 1000 + bj;
}
