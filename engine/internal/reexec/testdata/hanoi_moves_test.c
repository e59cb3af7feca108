#include "check.h"
long hanoi_moves(int n, int from, int to, int via, int *log, int cap);
int main(void) {
	int l[16] = {0};
	CHECK(hanoi_moves(0, 1, 3, 2, l, 16) == 0);
	CHECK(hanoi_moves(1, 1, 3, 2, l, 16) == 1 && l[0] == 13);
	CHECK(hanoi_moves(2, 1, 3, 2, l, 16) == 3 && l[0] == 12 && l[1] == 13 && l[2] == 23);
	CHECK(hanoi_moves(3, 1, 3, 2, l, 16) == 7 && l[0] == 13 && l[3] == 13 && l[6] == 13);
	CHECK(hanoi_moves(10, 1, 3, 2, l, 0) == 1023);
	CHECK(hanoi_moves(20, 1, 3, 2, l, 0) == 1048575);
	return 0;
}
