#include "check.h"
#include <string.h>
void str_to_title(char *s);
int main(void) {
	char a[] = "hello wORLD";
	str_to_title(a);
	CHECK(strcmp(a, "Hello World") == 0);
	char b[] = "o'neil-smith";
	str_to_title(b);
	CHECK(strcmp(b, "O'Neil-Smith") == 0);
	char c[] = "";
	str_to_title(c);
	CHECK(c[0] == 0);
	char d[] = "123abc";
	str_to_title(d);
	CHECK(strcmp(d, "123Abc") == 0);
	char e[] = "ALL CAPS";
	str_to_title(e);
	CHECK(strcmp(e, "All Caps") == 0);
	return 0;
}
