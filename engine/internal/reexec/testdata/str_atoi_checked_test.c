#include "check.h"
int str_atoi_checked(const char *s, int *out);
int main(void) {
	int v = 0;
	CHECK(str_atoi_checked("123", &v) == 0 && v == 123);
	CHECK(str_atoi_checked("  -42", &v) == 0 && v == -42);
	CHECK(str_atoi_checked("+7", &v) == 0 && v == 7);
	CHECK(str_atoi_checked("-2147483648", &v) == 0 && v == -2147483647 - 1);
	CHECK(str_atoi_checked("2147483648", &v) == -2);
	CHECK(str_atoi_checked("99999999999999", &v) == -2);
	CHECK(str_atoi_checked("12a", &v) == -1);
	CHECK(str_atoi_checked("", &v) == -1);
	CHECK(str_atoi_checked("-", &v) == -1);
	return 0;
}
