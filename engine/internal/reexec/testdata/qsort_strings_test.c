#include "check.h"
#include <stddef.h>
#include <string.h>
void qsort_strings(const char **v, size_t n);
int main(void) {
	const char *v[5] = {"pear", "apple", "fig", "apple", "banana"};
	qsort_strings(v, 5);
	CHECK(strcmp(v[0], "apple") == 0 && strcmp(v[1], "apple") == 0);
	CHECK(strcmp(v[2], "banana") == 0 && strcmp(v[3], "fig") == 0 && strcmp(v[4], "pear") == 0);
	const char *w[2] = {"b", "a"};
	qsort_strings(w, 1);
	CHECK(strcmp(w[0], "b") == 0);
	qsort_strings(w, 2);
	CHECK(strcmp(w[0], "a") == 0);
	qsort_strings(w, 0);
	CHECK(strcmp(w[1], "b") == 0);
	return 0;
}
