#include "check.h"
long calc_apply(char op, long a, long b, int *err);
int main(void) {
	int e = -1;
	CHECK(calc_apply('+', 2, 3, &e) == 5 && e == 0);
	CHECK(calc_apply('-', 2, 3, &e) == -1 && e == 0);
	CHECK(calc_apply('*', -4, 3, &e) == -12);
	CHECK(calc_apply('/', 7, 2, &e) == 3 && e == 0);
	CHECK(calc_apply('/', 7, 0, &e) == 0 && e == 1);
	CHECK(calc_apply('%', -7, 3, &e) == -1 && e == 0);
	CHECK(calc_apply('^', 6, 3, &e) == 5);
	CHECK(calc_apply('<', 1, 2, &e) == 1 && calc_apply('>', 1, 2, &e) == 0);
	CHECK(calc_apply('?', 1, 2, &e) == 0 && e == 2);
	return 0;
}
