#include "check.h"
int str_count_char(const char *s, char c);
int main(void) {
	CHECK(str_count_char("banana", 'a') == 3);
	CHECK(str_count_char("banana", 'z') == 0);
	CHECK(str_count_char("", 'a') == 0);
	CHECK(str_count_char("aaaa", 'a') == 4);
	CHECK(str_count_char("a\xff" "b\xff", '\xff') == 2);
	CHECK(str_count_char("abc", 0) == 0);
	return 0;
}
