#include "check.h"
#include <string.h>
int path_normalize(const char *in, char *out);
int main(void) {
	char b[128];
	CHECK(path_normalize("/a/b/../c/./d/", b) == 6 && strcmp(b, "/a/c/d") == 0);
	CHECK(path_normalize("a//b", b) == 3 && strcmp(b, "a/b") == 0);
	CHECK(path_normalize("/../x", b) == 2 && strcmp(b, "/x") == 0);
	CHECK(path_normalize("../x", b) == -1);
	CHECK(path_normalize("a/..", b) == 1 && strcmp(b, ".") == 0);
	CHECK(path_normalize("/", b) == 1 && strcmp(b, "/") == 0);
	CHECK(path_normalize("x/y/z/../../w", b) == 3 && strcmp(b, "x/w") == 0);
	return 0;
}
