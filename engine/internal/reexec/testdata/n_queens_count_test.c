#include "check.h"
int n_queens_count(int n, int row, unsigned cols, unsigned d1, unsigned d2);
int main(void) {
	CHECK(n_queens_count(1, 0, 0, 0, 0) == 1);
	CHECK(n_queens_count(2, 0, 0, 0, 0) == 0);
	CHECK(n_queens_count(3, 0, 0, 0, 0) == 0);
	CHECK(n_queens_count(4, 0, 0, 0, 0) == 2);
	CHECK(n_queens_count(6, 0, 0, 0, 0) == 4);
	CHECK(n_queens_count(8, 0, 0, 0, 0) == 92);
	return 0;
}
