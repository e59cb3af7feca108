#include "check.h"
#include <string.h>
void str_caesar(char *s, int shift);
int main(void) {
	char a[] = "Hello, World!";
	str_caesar(a, 3);
	CHECK(strcmp(a, "Khoor, Zruog!") == 0);
	str_caesar(a, -3);
	CHECK(strcmp(a, "Hello, World!") == 0);
	str_caesar(a, 26);
	CHECK(strcmp(a, "Hello, World!") == 0);
	char b[] = "xyz";
	str_caesar(b, 55);
	CHECK(strcmp(b, "abc") == 0);
	char c[] = "";
	str_caesar(c, 5);
	CHECK(c[0] == 0);
	return 0;
}
