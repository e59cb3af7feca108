#include "check.h"
#include <string.h>
int int_to_roman(int v, char *out);
int main(void) {
	char b[32];
	CHECK(int_to_roman(1994, b) == 7 && strcmp(b, "MCMXCIV") == 0);
	CHECK(int_to_roman(3, b) == 3 && strcmp(b, "III") == 0);
	CHECK(int_to_roman(3999, b) == 9 && strcmp(b, "MMMCMXCIX") == 0);
	CHECK(int_to_roman(4, b) == 2 && strcmp(b, "IV") == 0);
	CHECK(int_to_roman(0, b) == -1);
	CHECK(int_to_roman(4000, b) == -1);
	return 0;
}
