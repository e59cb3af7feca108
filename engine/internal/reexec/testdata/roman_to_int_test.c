#include "check.h"
int roman_to_int(const char *s);
int main(void) {
	CHECK(roman_to_int("III") == 3);
	CHECK(roman_to_int("IV") == 4);
	CHECK(roman_to_int("IX") == 9);
	CHECK(roman_to_int("LVIII") == 58);
	CHECK(roman_to_int("MCMXCIV") == 1994);
	CHECK(roman_to_int("") == 0);
	CHECK(roman_to_int("XZ") == -1);
	CHECK(roman_to_int("MMMCMXCIX") == 3999);
	return 0;
}
