#include "check.h"
int str_split_count(const char *s, char sep, int *longest);
int main(void) {
	int l = -1;
	CHECK(str_split_count("a,bb,ccc", ',', &l) == 3 && l == 3);
	CHECK(str_split_count("", ',', &l) == 1 && l == 0);
	CHECK(str_split_count(",,", ',', &l) == 3 && l == 0);
	CHECK(str_split_count("hello", ',', &l) == 1 && l == 5);
	CHECK(str_split_count("ab:cdef:", ':', &l) == 3 && l == 4);
	return 0;
}
