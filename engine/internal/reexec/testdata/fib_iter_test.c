#include "check.h"
#include <stdint.h>
uint64_t fib_iter(unsigned n);
int main(void) {
	CHECK(fib_iter(0) == 0);
	CHECK(fib_iter(1) == 1);
	CHECK(fib_iter(2) == 1);
	CHECK(fib_iter(10) == 55);
	CHECK(fib_iter(50) == 12586269025ull);
	CHECK(fib_iter(93) == 12200160415121876738ull);
	return 0;
}
