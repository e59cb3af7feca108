#include <stdint.h>

uint64_t climb_stairs_memo(int n, uint64_t *memo) {
	if (n < 0)
		return 0;
	if (n <= 1)
		return 1;
	if (memo[n])
		return memo[n];
	memo[n] = climb_stairs_memo(n - 1, memo) + climb_stairs_memo(n - 2, memo) + (n >= 3 ? climb_stairs_memo(n - 3, memo) : 0);
	return memo[n];
}
