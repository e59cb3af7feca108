#include "check.h"
#include <stdint.h>
uint64_t coin_change_ways(const int *coins, int n, int amount);
int main(void) {
	int c[4] = {1, 2, 5, 10};
	CHECK(coin_change_ways(c, 3, 5) == 4);
	CHECK(coin_change_ways(c, 3, 0) == 1);
	CHECK(coin_change_ways(c + 1, 1, 3) == 0);
	CHECK(coin_change_ways(c, 4, 100) == 2156);
	CHECK(coin_change_ways(c, 4, 512) == 0);
	CHECK(coin_change_ways(c, 0, 7) == 0);
	return 0;
}
