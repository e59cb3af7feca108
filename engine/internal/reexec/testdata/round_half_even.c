#include <math.h>

double round_half_even(double x) {
	double f = floor(x), d = x - f;
	if (d > 0.5)
		return f + 1;
	if (d < 0.5)
		return f;
	return fmod(f, 2.0) == 0 ? f : f + 1;
}
