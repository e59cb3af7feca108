#include "check.h"
long str_tokenize_sum(const char *csv, int *fields);
int main(void) {
	int f = -1;
	CHECK(str_tokenize_sum("1,2,3", &f) == 6 && f == 3);
	CHECK(str_tokenize_sum("10; -4 ,, 7", &f) == 13 && f == 3);
	CHECK(str_tokenize_sum("", &f) == 0 && f == 0);
	CHECK(str_tokenize_sum(",,,", &f) == 0 && f == 0);
	CHECK(str_tokenize_sum("x,5", &f) == 5 && f == 2);
	CHECK(str_tokenize_sum("2147483648", &f) == 2147483648L && f == 1);
	return 0;
}
