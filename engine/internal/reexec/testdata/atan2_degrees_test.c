#include "check.h"
double atan2_degrees(double y, double x);
int main(void) {
	CHECK_NEAR(atan2_degrees(0, 1), 0, 1e-12);
	CHECK_NEAR(atan2_degrees(1, 0), 90, 1e-12);
	CHECK_NEAR(atan2_degrees(0, -1), 180, 1e-12);
	CHECK_NEAR(atan2_degrees(-1, 0), 270, 1e-12);
	CHECK_NEAR(atan2_degrees(1, 1), 45, 1e-12);
	CHECK_NEAR(atan2_degrees(0, 0), 0, 0);
	CHECK_NEAR(atan2_degrees(-1, 1), 315, 1e-12);
	return 0;
}
