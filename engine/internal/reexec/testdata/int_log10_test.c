#include "check.h"
int int_log10(unsigned long long v);
int main(void) {
	CHECK(int_log10(0) == -1);
	CHECK(int_log10(1) == 0);
	CHECK(int_log10(9) == 0);
	CHECK(int_log10(10) == 1);
	CHECK(int_log10(999999) == 5);
	CHECK(int_log10(18446744073709551615ull) == 19);
	return 0;
}
