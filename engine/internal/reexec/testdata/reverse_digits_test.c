#include "check.h"
int reverse_digits(int v, int *overflow);
int main(void) {
	int o = 7;
	CHECK(reverse_digits(123, &o) == 321 && o == 0);
	CHECK(reverse_digits(-120, &o) == -21 && o == 0);
	o = 5;
	CHECK(reverse_digits(0, &o) == 0 && o == 0);
	CHECK(reverse_digits(1534236469, &o) == 0 && o == 1);
	CHECK(reverse_digits(-2147483648, &o) == 0 && o == 1);
	CHECK(reverse_digits(1463847412, &o) == 2147483641 && o == 0);
	return 0;
}
