#include <math.h>

void polar_to_cart(double r, double theta, double *x, double *y) {
	*x = r * cos(theta);
	*y = r * sin(theta);
}
