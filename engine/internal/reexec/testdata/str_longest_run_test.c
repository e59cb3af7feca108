#include "check.h"
#include <stddef.h>
size_t str_longest_run(const char *s, char *which);
int main(void) {
	char c = 'q';
	CHECK(str_longest_run("aabbbcc", &c) == 3 && c == 'b');
	CHECK(str_longest_run("", &c) == 0 && c == 0);
	CHECK(str_longest_run("x", &c) == 1 && c == 'x');
	CHECK(str_longest_run("abcd", &c) == 1 && c == 'a');
	CHECK(str_longest_run("aaaab", &c) == 4 && c == 'a');
	CHECK(str_longest_run("abzzzz", &c) == 4 && c == 'z');
	return 0;
}
