#include <stdint.h>

uint32_t gcd_u32(uint32_t a, uint32_t b) {
	while (b != 0) {
		uint32_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}
