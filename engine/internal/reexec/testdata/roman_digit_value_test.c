#include "check.h"
int roman_digit_value(char c);
int main(void) {
	CHECK(roman_digit_value('I') == 1);
	CHECK(roman_digit_value('V') == 5);
	CHECK(roman_digit_value('X') == 10);
	CHECK(roman_digit_value('L') == 50);
	CHECK(roman_digit_value('C') == 100);
	CHECK(roman_digit_value('D') == 500);
	CHECK(roman_digit_value('M') == 1000);
	CHECK(roman_digit_value('i') == 0);
	CHECK(roman_digit_value('\0') == 0);
	return 0;
}
