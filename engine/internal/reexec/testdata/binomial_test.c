#include "check.h"
#include <stdint.h>
uint64_t binomial(unsigned n, unsigned k);
int main(void) {
	CHECK(binomial(5, 2) == 10);
	CHECK(binomial(5, 0) == 1);
	CHECK(binomial(5, 5) == 1);
	CHECK(binomial(3, 4) == 0);
	CHECK(binomial(30, 15) == 155117520ull);
	CHECK(binomial(60, 30) == 118264581564861424ull);
	return 0;
}
