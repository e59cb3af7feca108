#include "check.h"
int lcs_length(const char *a, const char *b);
int main(void) {
	CHECK(lcs_length("ABCBDAB", "BDCABA") == 4);
	CHECK(lcs_length("", "abc") == 0);
	CHECK(lcs_length("abc", "abc") == 3);
	CHECK(lcs_length("abc", "def") == 0);
	CHECK(lcs_length("AGGTAB", "GXTXAYB") == 4);
	CHECK(lcs_length("0123456789012345678901234567890123456789012345678901234567890123", "x") == -1);
	return 0;
}
