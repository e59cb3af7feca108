#include "check.h"
void insertion_sort_f64(double *a, int n);
int main(void) {
	double a[6] = {3.5, -1.25, 2, 2, 1e9, -1e9};
	insertion_sort_f64(a, 6);
	CHECK(a[0] == -1e9 && a[1] == -1.25 && a[2] == 2 && a[3] == 2 && a[4] == 3.5 && a[5] == 1e9);
	double b[2] = {1, 0};
	insertion_sort_f64(b, 1);
	CHECK(b[0] == 1 && b[1] == 0);
	insertion_sort_f64(b, 2);
	CHECK(b[0] == 0 && b[1] == 1);
	double c[3] = {0.1, 0.2, 0.3};
	insertion_sort_f64(c, 3);
	CHECK(c[0] == 0.1 && c[2] == 0.3);
	double d[3] = {-0.5, -0.25, -1};
	insertion_sort_f64(d, 3);
	CHECK(d[0] == -1 && d[1] == -0.5 && d[2] == -0.25);
	return 0;
}
