#include "check.h"
int sign_of(long long v);
int main(void) {
	CHECK(sign_of(5) == 1);
	CHECK(sign_of(-5) == -1);
	CHECK(sign_of(0) == 0);
	CHECK(sign_of(9223372036854775807LL) == 1);
	CHECK(sign_of(-9223372036854775807LL - 1) == -1);
	return 0;
}
