#include <stdint.h>

int is_prime_u32(uint32_t n) {
	if (n < 2)
		return 0;
	if (n % 2 == 0)
		return n == 2;
	if (n % 3 == 0)
		return n == 3;
	for (uint32_t i = 5; (uint64_t)i * i <= n; i += 6) {
		if (n % i == 0 || n % (i + 2) == 0)
			return 0;
	}
	return 1;
}
