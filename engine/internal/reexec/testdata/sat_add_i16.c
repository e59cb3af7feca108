#include <stdint.h>

int16_t sat_add_i16(int16_t a, int16_t b) {
	int32_t s = (int32_t)a + b;
	if (s > INT16_MAX)
		return INT16_MAX;
	if (s < INT16_MIN)
		return INT16_MIN;
	return (int16_t)s;
}
