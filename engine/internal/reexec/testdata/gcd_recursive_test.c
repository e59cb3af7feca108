#include "check.h"
long gcd_recursive(long a, long b);
int main(void) {
	CHECK(gcd_recursive(48, 18) == 6);
	CHECK(gcd_recursive(-48, 18) == 6);
	CHECK(gcd_recursive(48, -18) == 6);
	CHECK(gcd_recursive(0, 0) == 0);
	CHECK(gcd_recursive(0, 9) == 9);
	CHECK(gcd_recursive(1000000007L * 3, 1000000007L * 5) == 1000000007L);
	return 0;
}
