#include "check.h"
void matrix_transpose(const int *in, int *out, int rows, int cols);
int main(void) {
	int a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {0};
	matrix_transpose(a, b, 2, 3);
	CHECK(b[0] == 1 && b[1] == 4 && b[2] == 2 && b[3] == 5 && b[4] == 3 && b[5] == 6);
	matrix_transpose(a, b, 1, 6);
	CHECK(b[0] == 1 && b[5] == 6);
	matrix_transpose(a, b, 3, 2);
	CHECK(b[0] == 1 && b[1] == 3 && b[2] == 5 && b[3] == 2);
	b[0] = 42;
	matrix_transpose(a, b, 0, 3);
	CHECK(b[0] == 42);
	matrix_transpose(a + 5, b, 1, 1);
	CHECK(b[0] == 6);
	return 0;
}
