#include "check.h"
int triangle_kind(int a, int b, int c);
int main(void) {
	CHECK(triangle_kind(3, 3, 3) == 3);
	CHECK(triangle_kind(3, 3, 5) == 2);
	CHECK(triangle_kind(3, 4, 5) == 1);
	CHECK(triangle_kind(1, 2, 3) == -1);
	CHECK(triangle_kind(0, 4, 5) == -1);
	CHECK(triangle_kind(2147483647, 2147483647, 5) == 2);
	return 0;
}
