#include <stdint.h>

uint64_t mask_range(int lo, int hi) {
	if (lo < 0)
		lo = 0;
	if (hi > 63)
		hi = 63;
	if (lo > hi)
		return 0;
	uint64_t upper = hi == 63 ? ~0ull : (1ull << (hi + 1)) - 1;
	uint64_t lower = (1ull << lo) - 1;
	return upper & ~lower;
}
