#include "check.h"
typedef int (*binop)(int, int);
int dispatch_table(const binop *ops, int nops, const int *prog, int n, int start);
static int add(int a, int b) { return a + b; }
static int mul(int a, int b) { return a * b; }
static int sub(int a, int b) { return a - b; }
int main(void) {
	binop ops[4] = {add, mul, sub, 0};
	int p[6] = {0, 5, 1, 3, 2, 1};
	CHECK(dispatch_table(ops, 4, p, 6, 1) == 17);
	CHECK(dispatch_table(ops, 4, p, 2, 1) == 6);
	CHECK(dispatch_table(ops, 4, p, 0, 9) == 9);
	int q[2] = {3, 1};
	CHECK(dispatch_table(ops, 4, q, 2, 1) == -1);
	int r[2] = {7, 1};
	CHECK(dispatch_table(ops, 4, r, 2, 1) == -1);
	CHECK(dispatch_table(ops, 4, p, 5, 2) == 21);
	return 0;
}
