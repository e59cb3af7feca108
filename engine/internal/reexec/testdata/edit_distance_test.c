#include "check.h"
int edit_distance(const char *a, const char *b);
int main(void) {
	CHECK(edit_distance("kitten", "sitting") == 3);
	CHECK(edit_distance("", "abc") == 3);
	CHECK(edit_distance("abc", "") == 3);
	CHECK(edit_distance("same", "same") == 0);
	CHECK(edit_distance("flaw", "lawn") == 2);
	CHECK(edit_distance("intention", "execution") == 5);
	return 0;
}
