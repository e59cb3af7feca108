#include "check.h"
long div_floor(long a, long b);
int main(void) {
	CHECK(div_floor(7, 2) == 3);
	CHECK(div_floor(-7, 2) == -4);
	CHECK(div_floor(7, -2) == -4);
	CHECK(div_floor(-7, -2) == 3);
	CHECK(div_floor(-8, 2) == -4);
	CHECK(div_floor(0, 5) == 0);
	return 0;
}
