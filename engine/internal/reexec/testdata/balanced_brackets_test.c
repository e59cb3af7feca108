#include "check.h"
int balanced_brackets(const char *s);
int main(void) {
	CHECK(balanced_brackets("([]{})"));
	CHECK(balanced_brackets("a(b)c"));
	CHECK(balanced_brackets(""));
	CHECK(!balanced_brackets("(]"));
	CHECK(!balanced_brackets("(("));
	CHECK(!balanced_brackets(")("));
	CHECK(balanced_brackets("{[()()]}"));
	return 0;
}
