#include "check.h"
#include <string.h>
int str_replace_char(char *s, char from, char to);
int main(void) {
	char a[] = "a-b-c";
	CHECK(str_replace_char(a, '-', '+') == 2 && strcmp(a, "a+b+c") == 0);
	CHECK(str_replace_char(a, 'x', 'y') == 0 && strcmp(a, "a+b+c") == 0);
	char b[] = "";
	CHECK(str_replace_char(b, 'a', 'b') == 0);
	char c[] = "aaa";
	CHECK(str_replace_char(c, 'a', 'a') == 3 && strcmp(c, "aaa") == 0);
	CHECK(str_replace_char(c, 'a', 'b') == 3 && strcmp(c, "bbb") == 0);
	return 0;
}
