#include <stdlib.h>
#include <string.h>

static int cmp_str_ptr(const void *a, const void *b) { /* helper of qsort_strings */
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void qsort_strings(const char **v, size_t n) {
	qsort(v, n, sizeof *v, cmp_str_ptr);
}
