#include "check.h"
#include <string.h>
int do_while_digits(unsigned v, unsigned base, char *out);
int main(void) {
	char b[40];
	CHECK(do_while_digits(0, 10, b) == 1 && strcmp(b, "0") == 0);
	CHECK(do_while_digits(255, 16, b) == 2 && strcmp(b, "ff") == 0);
	CHECK(do_while_digits(5, 2, b) == 3 && strcmp(b, "101") == 0);
	CHECK(do_while_digits(4294967295u, 2, b) == 32);
	CHECK(do_while_digits(4294967295u, 10, b) == 10 && strcmp(b, "4294967295") == 0);
	CHECK(do_while_digits(7, 1, b) == -1 && do_while_digits(7, 17, b) == -1);
	return 0;
}
