#include "check.h"
#include <stddef.h>
#include <string.h>
size_t strncpy_safe(char *dst, const char *src, size_t cap);
int main(void) {
	char b[8];
	CHECK(strncpy_safe(b, "hello", 8) == 5 && strcmp(b, "hello") == 0);
	CHECK(strncpy_safe(b, "hello world", 8) == 11 && strcmp(b, "hello w") == 0);
	CHECK(strncpy_safe(b, "", 8) == 0 && b[0] == 0);
	b[0] = 'x';
	CHECK(strncpy_safe(b, "abc", 0) == 3 && b[0] == 'x');
	CHECK(strncpy_safe(b, "abc", 1) == 3 && b[0] == 0);
	return 0;
}
