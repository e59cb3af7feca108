#include "check.h"
int spiral_order(const int *m, int rows, int cols, int *out);
int main(void) {
	int m[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, o[12] = {0};
	CHECK(spiral_order(m, 3, 4, o) == 12);
	int want[12] = {1, 2, 3, 4, 8, 12, 11, 10, 9, 5, 6, 7};
	for (int i = 0; i < 12; i++)
		CHECK(o[i] == want[i]);
	CHECK(spiral_order(m, 1, 3, o) == 3 && o[2] == 3);
	CHECK(spiral_order(m, 3, 1, o) == 3 && o[0] == 1 && o[1] == 2 && o[2] == 3);
	CHECK(spiral_order(m, 0, 0, o) == 0);
	CHECK(spiral_order(m, 2, 2, o) == 4 && o[2] == 4 && o[3] == 3);
	return 0;
}
