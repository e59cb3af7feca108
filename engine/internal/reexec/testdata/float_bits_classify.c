#include <stdint.h>
#include <string.h>

int float_bits_classify(float f) {
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	uint32_t exp = (u >> 23) & 0xff, man = u & 0x7fffff;
	if (exp == 0xff)
		return man ? 4 : 3; /* NaN : infinity */
	if (exp == 0)
		return man ? 1 : 0; /* subnormal : zero */
	return 2;               /* normal */
}
