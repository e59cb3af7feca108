#include <stdint.h>

int popcount_u64(uint64_t v) {
	int n = 0;
	while (v) {
		v &= v - 1;
		n++;
	}
	return n;
}
