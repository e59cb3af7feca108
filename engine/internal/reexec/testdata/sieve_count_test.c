#include "check.h"
int sieve_count(int limit, int *largest);
int main(void) {
	int l = -1;
	CHECK(sieve_count(10, &l) == 4 && l == 7);
	CHECK(sieve_count(2, &l) == 1 && l == 2);
	l = -1;
	CHECK(sieve_count(1, &l) == 0 && l == -1);
	CHECK(sieve_count(100, &l) == 25 && l == 97);
	CHECK(sieve_count(100000, &l) == 9592 && l == 99991);
	return 0;
}
