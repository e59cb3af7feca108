#include "check.h"
int clamp_i32(int v, int lo, int hi);
int main(void) {
	CHECK(clamp_i32(5, 0, 10) == 5);
	CHECK(clamp_i32(-5, 0, 10) == 0);
	CHECK(clamp_i32(50, 0, 10) == 10);
	CHECK(clamp_i32(50, 10, 0) == 10);
	CHECK(clamp_i32(-2147483647 - 1, -3, 3) == -3);
	CHECK(clamp_i32(7, 7, 7) == 7);
	return 0;
}
