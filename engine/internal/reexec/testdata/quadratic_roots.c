#include <math.h>

int quadratic_roots(double a, double b, double c, double *r1, double *r2) {
	if (a == 0) {
		if (b == 0)
			return 0;
		*r1 = *r2 = -c / b;
		return 1;
	}
	double d = b * b - 4 * a * c;
	if (d < 0)
		return 0;
	double s = sqrt(d);
	double q = b < 0 ? -0.5 * (b - s) : -0.5 * (b + s);
	double x1 = q / a, x2 = q != 0 ? c / q : x1;
	if (x1 > x2) {
		double t = x1;
		x1 = x2;
		x2 = t;
	}
	*r1 = x1;
	*r2 = x2;
	return d == 0 ? 1 : 2;
}
