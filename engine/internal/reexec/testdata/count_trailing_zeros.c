#include <stdint.h>

int count_trailing_zeros(uint64_t v) {
	if (v == 0)
		return 64;
	int n = 0;
	while ((v & 1) == 0) {
		v >>= 1;
		n++;
	}
	return n;
}
