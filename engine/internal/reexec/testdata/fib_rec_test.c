#include "check.h"
int fib_rec(int n);
int main(void) {
	CHECK(fib_rec(-3) == 0);
	CHECK(fib_rec(0) == 0);
	CHECK(fib_rec(1) == 1);
	CHECK(fib_rec(2) == 1);
	CHECK(fib_rec(12) == 144);
	CHECK(fib_rec(24) == 46368);
	return 0;
}
