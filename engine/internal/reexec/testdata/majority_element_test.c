#include "check.h"
int majority_element(const int *a, int n, int *out);
int main(void) {
	int a[7] = {2, 2, 1, 1, 1, 2, 2}, v = 0;
	CHECK(majority_element(a, 7, &v) == 1 && v == 2);
	CHECK(majority_element(a, 6, &v) == 0);
	CHECK(majority_element(a, 1, &v) == 1 && v == 2);
	CHECK(majority_element(a, 0, &v) == 0);
	int b[5] = {-7, 3, -7, 3, -7};
	CHECK(majority_element(b, 5, &v) == 1 && v == -7);
	return 0;
}
