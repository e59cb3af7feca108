#include "check.h"
#include <stddef.h>
#include <string.h>
const char *path_basename(const char *path, size_t *len);
int main(void) {
	size_t n = 99;
	const char *p = "/usr/lib/libc.so.6";
	CHECK(path_basename(p, &n) == p + 9 && n == 9);
	const char *q = "/usr/lib/";
	CHECK(path_basename(q, &n) == q + 5 && n == 3);
	CHECK(strcmp(path_basename("file", &n), "file") == 0 && n == 4);
	const char *r = "/";
	CHECK(path_basename(r, &n) == r && n == 1);
	const char *e = "";
	CHECK(path_basename(e, &n) == e && n == 0);
	return 0;
}
