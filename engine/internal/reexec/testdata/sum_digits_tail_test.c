#include "check.h"
long sum_digits_tail(unsigned long v, long acc);
int main(void) {
	CHECK(sum_digits_tail(0, 0) == 0);
	CHECK(sum_digits_tail(0, 5) == 5);
	CHECK(sum_digits_tail(12345, 0) == 15);
	CHECK(sum_digits_tail(999, 1) == 28);
	CHECK(sum_digits_tail(18446744073709551615ul, 0) == 87);
	return 0;
}
