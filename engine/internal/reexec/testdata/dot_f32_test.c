#include "check.h"
float dot_f32(const float *a, const float *b, unsigned n);
int main(void) {
	float a[17], b[17];
	for (int i = 0; i < 17; i++) {
		a[i] = (float)i;
		b[i] = 0.5f;
	}
	CHECK_NEAR(dot_f32(a, b, 17), 68.0, 1e-6);
	CHECK_NEAR(dot_f32(a, b, 0), 0.0, 1e-6);
	CHECK_NEAR(dot_f32(a, b, 3), 1.5, 1e-6);
	CHECK_NEAR(dot_f32(a, a, 4), 14.0, 1e-6);
	CHECK_NEAR(dot_f32(a + 16, b, 1), 8.0, 1e-6);
	return 0;
}
