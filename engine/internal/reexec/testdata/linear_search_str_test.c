#include "check.h"
int linear_search_str(const char *const *names, int n, const char *key);
int main(void) {
	const char *n[4] = {"alpha", "beta", "gamma", "beta"};
	CHECK(linear_search_str(n, 4, "alpha") == 0);
	CHECK(linear_search_str(n, 4, "beta") == 1);
	CHECK(linear_search_str(n, 4, "gamma") == 2);
	CHECK(linear_search_str(n, 4, "delta") == -1);
	CHECK(linear_search_str(n, 0, "alpha") == -1);
	CHECK(linear_search_str(n + 2, 2, "beta") == 1);
	return 0;
}
