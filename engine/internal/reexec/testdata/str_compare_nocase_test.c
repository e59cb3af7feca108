#include "check.h"
int str_compare_nocase(const char *a, const char *b);
int main(void) {
	CHECK(str_compare_nocase("abc", "ABC") == 0);
	CHECK(str_compare_nocase("abc", "abd") == -1);
	CHECK(str_compare_nocase("b", "A") == 1);
	CHECK(str_compare_nocase("", "") == 0);
	CHECK(str_compare_nocase("ab", "abc") == -1);
	CHECK(str_compare_nocase("abc", "AB") == 1);
	CHECK(str_compare_nocase("\xe9", "a") == 1);
	return 0;
}
