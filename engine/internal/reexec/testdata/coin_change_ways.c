#include <stdint.h>

uint64_t coin_change_ways(const int *coins, int n, int amount) {
	uint64_t ways[512];
	if (amount < 0 || amount > 511)
		return 0;
	for (int i = 0; i <= amount; i++)
		ways[i] = 0;
	ways[0] = 1;
	for (int c = 0; c < n; c++)
		for (int a = coins[c]; a <= amount; a++)
			ways[a] += ways[a - coins[c]];
	return ways[amount];
}
