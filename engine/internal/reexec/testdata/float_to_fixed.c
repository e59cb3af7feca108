#include <stdint.h>

int32_t float_to_fixed(double v, int frac_bits) {
	double scaled = v * (double)(1LL << frac_bits);
	if (scaled >= 2147483647.0)
		return INT32_MAX;
	if (scaled <= -2147483648.0)
		return INT32_MIN;
	return (int32_t)(scaled < 0 ? scaled - 0.5 : scaled + 0.5);
}
