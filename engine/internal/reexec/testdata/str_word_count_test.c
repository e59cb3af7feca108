#include "check.h"
int str_word_count(const char *s);
int main(void) {
	CHECK(str_word_count("") == 0);
	CHECK(str_word_count("   ") == 0);
	CHECK(str_word_count("one") == 1);
	CHECK(str_word_count(" one  two\tthree\n") == 3);
	CHECK(str_word_count("a b c d e") == 5);
	return 0;
}
