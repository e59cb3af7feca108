#include "check.h"
int mod_euclid(int a, int m);
int main(void) {
	CHECK(mod_euclid(7, 3) == 1);
	CHECK(mod_euclid(-7, 3) == 2);
	CHECK(mod_euclid(-7, -3) == 2);
	CHECK(mod_euclid(6, 3) == 0);
	CHECK(mod_euclid(-1, 1000) == 999);
	CHECK(mod_euclid(5, 7) == 5);
	return 0;
}
