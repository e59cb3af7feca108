#include "check.h"
#include <stddef.h>
size_t str_length(const char *s);
int main(void) {
	CHECK(str_length("") == 0);
	CHECK(str_length("a") == 1);
	CHECK(str_length("hello world") == 11);
	CHECK(str_length("ab\0cd") == 2);
	CHECK(str_length("\xff\xfe") == 2);
	return 0;
}
