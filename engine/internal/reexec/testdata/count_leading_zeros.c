#include <stdint.h>

int count_leading_zeros(uint32_t v) {
	if (v == 0)
		return 32;
	int n = 0;
	if ((v & 0xffff0000u) == 0) { n += 16; v <<= 16; }
	if ((v & 0xff000000u) == 0) { n += 8; v <<= 8; }
	if ((v & 0xf0000000u) == 0) { n += 4; v <<= 4; }
	if ((v & 0xc0000000u) == 0) { n += 2; v <<= 2; }
	if ((v & 0x80000000u) == 0) { n += 1; }
	return n;
}
