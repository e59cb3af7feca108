#include "check.h"
#include <string.h>
int url_decode(const char *in, char *out);
int main(void) {
	char b[64];
	CHECK(url_decode("a%20b", b) == 3 && strcmp(b, "a b") == 0);
	CHECK(url_decode("x+y", b) == 3 && strcmp(b, "x y") == 0);
	CHECK(url_decode("%41%62%7e", b) == 3 && strcmp(b, "Ab~") == 0);
	CHECK(url_decode("", b) == 0 && b[0] == 0);
	CHECK(url_decode("%4", b) == -1);
	CHECK(url_decode("%zz", b) == -1);
	CHECK(url_decode("%ff", b) == 1 && (unsigned char)b[0] == 0xff);
	return 0;
}
