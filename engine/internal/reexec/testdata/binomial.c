#include <stdint.h>

uint64_t binomial(unsigned n, unsigned k) {
	if (k > n)
		return 0;
	if (k > n - k)
		k = n - k;
	uint64_t r = 1;
	for (unsigned i = 1; i <= k; i++) {
		r = r * (n - k + i) / i;
	}
	return r;
}
