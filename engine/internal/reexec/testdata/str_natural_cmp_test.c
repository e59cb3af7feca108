#include "check.h"
int str_natural_cmp(const char *a, const char *b);
int main(void) {
	CHECK(str_natural_cmp("file2", "file10") == -1);
	CHECK(str_natural_cmp("file10", "file2") == 1);
	CHECK(str_natural_cmp("file10", "file10") == 0);
	CHECK(str_natural_cmp("a", "b") == -1);
	CHECK(str_natural_cmp("abc", "ab") == 1);
	CHECK(str_natural_cmp("x007", "x7") == 0);
	CHECK(str_natural_cmp("", "a") == -1);
	return 0;
}
