#include "check.h"
void vec_add_i32(int *dst, const int *a, const int *b, int n);
int main(void) {
	int a[37], b[37], d[37];
	for (int i = 0; i < 37; i++) {
		a[i] = i * 3;
		b[i] = -i;
		d[i] = -1;
	}
	vec_add_i32(d, a, b, 37);
	for (int i = 0; i < 37; i++)
		CHECK(d[i] == 2 * i);
	vec_add_i32(d, a, a, 5);
	CHECK(d[4] == 24 && d[5] == 10);
	d[0] = 99;
	vec_add_i32(d, a, b, 0);
	CHECK(d[0] == 99);
	vec_add_i32(a, a, b, 37); /* in place */
	CHECK(a[36] == 72 && a[1] == 2);
	CHECK(d[36] == 72);
	return 0;
}
