#include "check.h"
int digit_sum(long long v);
int main(void) {
	CHECK(digit_sum(0) == 0);
	CHECK(digit_sum(7) == 7);
	CHECK(digit_sum(12345) == 15);
	CHECK(digit_sum(-999) == 27);
	CHECK(digit_sum(1000000000000LL) == 1);
	CHECK(digit_sum(9223372036854775807LL) == 88);
	return 0;
}
