#include "check.h"
int strstr_count(const char *hay, const char *needle, int overlap);
int main(void) {
	CHECK(strstr_count("aaaa", "aa", 0) == 2);
	CHECK(strstr_count("aaaa", "aa", 1) == 3);
	CHECK(strstr_count("abcabc", "abc", 0) == 2);
	CHECK(strstr_count("abc", "x", 0) == 0);
	CHECK(strstr_count("abc", "", 0) == -1);
	CHECK(strstr_count("", "a", 1) == 0);
	return 0;
}
