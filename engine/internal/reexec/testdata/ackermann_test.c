#include "check.h"
unsigned long ackermann(unsigned long m, unsigned long n);
int main(void) {
	CHECK(ackermann(0, 0) == 1);
	CHECK(ackermann(0, 41) == 42);
	CHECK(ackermann(1, 2) == 4);
	CHECK(ackermann(2, 3) == 9);
	CHECK(ackermann(3, 3) == 61);
	CHECK(ackermann(3, 5) == 253);
	return 0;
}
