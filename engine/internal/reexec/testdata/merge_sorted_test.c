#include "check.h"
int merge_sorted(const int *a, int na, const int *b, int nb, int *out);
int main(void) {
	int a[4] = {1, 4, 6, 9}, b[3] = {2, 4, 10}, o[8] = {0};
	CHECK(merge_sorted(a, 4, b, 3, o) == 7);
	CHECK(o[0] == 1 && o[1] == 2 && o[2] == 4 && o[3] == 4 && o[4] == 6 && o[5] == 9 && o[6] == 10);
	CHECK(merge_sorted(a, 0, b, 3, o) == 3 && o[0] == 2 && o[2] == 10);
	CHECK(merge_sorted(a, 4, b, 0, o) == 4 && o[0] == 1 && o[3] == 9);
	CHECK(merge_sorted(a, 0, b, 0, o) == 0);
	CHECK(merge_sorted(b + 2, 1, a, 1, o) == 2 && o[0] == 1 && o[1] == 10);
	return 0;
}
