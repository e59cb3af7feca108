#include "check.h"
int str_is_palindrome(const char *s);
int main(void) {
	CHECK(str_is_palindrome("A man, a plan, a canal: Panama"));
	CHECK(!str_is_palindrome("race a car"));
	CHECK(str_is_palindrome(""));
	CHECK(str_is_palindrome("x"));
	CHECK(str_is_palindrome("..,,"));
	CHECK(!str_is_palindrome("ab"));
	CHECK(str_is_palindrome("No 'x' in Nixon"));
	return 0;
}
