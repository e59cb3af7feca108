#include "check.h"
int collatz_steps(long n);
int main(void) {
	CHECK(collatz_steps(1) == 0);
	CHECK(collatz_steps(2) == 1);
	CHECK(collatz_steps(6) == 8);
	CHECK(collatz_steps(27) == 111);
	CHECK(collatz_steps(0) == -1);
	CHECK(collatz_steps(-5) == -1);
	return 0;
}
