#include "check.h"
#include <stddef.h>
const char *str_find_last(const char *hay, const char *needle);
int main(void) {
	const char *s = "abcabcab";
	CHECK(str_find_last(s, "abc") == s + 3);
	CHECK(str_find_last(s, "ab") == s + 6);
	CHECK(str_find_last(s, "x") == NULL);
	CHECK(str_find_last(s, "") == s);
	CHECK(str_find_last(s, "abcabcabc") == NULL);
	CHECK(str_find_last("aaa", "aa") == NULL || str_find_last("aaa", "aa")[2] == 0);
	return 0;
}
