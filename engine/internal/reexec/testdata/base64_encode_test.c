#include "check.h"
#include <stdlib.h>
#include <string.h>
char *base64_encode(const unsigned char *p, size_t n);
static int eq(char *got, const char *want) {
	int ok = got && strcmp(got, want) == 0;
	free(got);
	return ok;
}
int main(void) {
	const unsigned char *s = (const unsigned char *)"foobar";
	CHECK(eq(base64_encode(s, 0), ""));
	CHECK(eq(base64_encode(s, 1), "Zg=="));
	CHECK(eq(base64_encode(s, 2), "Zm8="));
	CHECK(eq(base64_encode(s, 3), "Zm9v"));
	CHECK(eq(base64_encode(s, 6), "Zm9vYmFy"));
	const unsigned char ff[2] = {0xff, 0xfe};
	CHECK(eq(base64_encode(ff, 2), "//4="));
	return 0;
}
