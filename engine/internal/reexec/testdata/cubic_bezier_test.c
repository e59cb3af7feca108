#include "check.h"
float cubic_bezier(float p0, float p1, float p2, float p3, float t);
int main(void) {
	CHECK_NEAR(cubic_bezier(0, 1, 2, 3, 0), 0.0, 1e-6);
	CHECK_NEAR(cubic_bezier(0, 1, 2, 3, 1), 3.0, 1e-6);
	CHECK_NEAR(cubic_bezier(0, 1, 2, 3, 0.5f), 1.5, 1e-6);
	CHECK_NEAR(cubic_bezier(0, 0, 1, 1, 0.5f), 0.5, 1e-6);
	CHECK_NEAR(cubic_bezier(1, 1, 1, 1, 0.3f), 1.0, 1e-6);
	CHECK_NEAR(cubic_bezier(0, 4, 0, 0, 0.5f), 1.5, 1e-6);
	return 0;
}
