#include "check.h"
int str_anagram(const char *a, const char *b);
int main(void) {
	CHECK(str_anagram("listen", "silent"));
	CHECK(!str_anagram("listen", "silenc"));
	CHECK(str_anagram("", ""));
	CHECK(!str_anagram("a", ""));
	CHECK(!str_anagram("aab", "abb"));
	CHECK(str_anagram("\xff\x01", "\x01\xff"));
	return 0;
}
