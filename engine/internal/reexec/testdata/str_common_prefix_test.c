#include "check.h"
#include <stddef.h>
size_t str_common_prefix(const char *const *strs, int n);
int main(void) {
	const char *a[3] = {"flower", "flow", "flight"};
	CHECK(str_common_prefix(a, 3) == 2);
	CHECK(str_common_prefix(a, 2) == 4);
	CHECK(str_common_prefix(a, 1) == 6);
	CHECK(str_common_prefix(a, 0) == 0);
	const char *b[2] = {"dog", "cat"};
	CHECK(str_common_prefix(b, 2) == 0);
	const char *c[2] = {"same", "same"};
	CHECK(str_common_prefix(c, 2) == 4);
	return 0;
}
