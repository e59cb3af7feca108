#include "check.h"
#include <stdlib.h>
#include <string.h>
char *i32_to_base(int v, int base);
static int eq(char *got, const char *want) {
	int ok = got && strcmp(got, want) == 0;
	free(got);
	return ok;
}
int main(void) {
	CHECK(eq(i32_to_base(255, 16), "ff"));
	CHECK(eq(i32_to_base(-255, 2), "-11111111"));
	CHECK(eq(i32_to_base(0, 10), "0"));
	CHECK(eq(i32_to_base(-2147483647 - 1, 10), "-2147483648"));
	CHECK(eq(i32_to_base(35, 36), "z"));
	CHECK(i32_to_base(10, 1) == NULL);
	CHECK(i32_to_base(10, 37) == NULL);
	return 0;
}
