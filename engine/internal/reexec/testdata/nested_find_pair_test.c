#include "check.h"
int nested_find_pair(const int *grid, int rows, int cols, int target, int *r_out, int *c_out);
int main(void) {
	int g[12] = {1, 2, 3, 4, 5, -1, 7, 8, 9, 10, 11, 12};
	int r = -1, c = -1;
	CHECK(nested_find_pair(g, 3, 4, 7, &r, &c) == 1 && r == 0 && c == 2);
	CHECK(nested_find_pair(g, 3, 4, 21, &r, &c) == 1 && r == 2 && c == 1);
	CHECK(nested_find_pair(g, 3, 4, 15, &r, &c) == 0);
	CHECK(nested_find_pair(g, 3, 4, 4, &r, &c) == 1 && r == 1 && c == 0);
	CHECK(nested_find_pair(g, 0, 4, 3, &r, &c) == 0);
	CHECK(nested_find_pair(g, 3, 1, 1, &r, &c) == 0);
	return 0;
}
