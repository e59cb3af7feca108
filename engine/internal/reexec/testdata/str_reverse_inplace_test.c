#include "check.h"
#include <string.h>
char *str_reverse_inplace(char *s);
int main(void) {
	char a[] = "hello", b[] = "", c[] = "x", d[] = "abcd";
	CHECK(str_reverse_inplace(a) == a);
	CHECK(strcmp(a, "olleh") == 0);
	CHECK(strcmp(str_reverse_inplace(b), "") == 0);
	CHECK(strcmp(str_reverse_inplace(c), "x") == 0);
	CHECK(strcmp(str_reverse_inplace(d), "dcba") == 0);
	return 0;
}
