#include "check.h"
double deg_to_rad_norm(double deg);
int main(void) {
	CHECK_NEAR(deg_to_rad_norm(0), 0.0, 1e-12);
	CHECK_NEAR(deg_to_rad_norm(180), M_PI, 1e-12);
	CHECK_NEAR(deg_to_rad_norm(-90), 1.5 * M_PI, 1e-12);
	CHECK_NEAR(deg_to_rad_norm(720 + 45), M_PI / 4, 1e-12);
	CHECK_NEAR(deg_to_rad_norm(-360), 0.0, 1e-12);
	return 0;
}
