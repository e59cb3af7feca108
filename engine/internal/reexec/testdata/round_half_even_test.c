#include "check.h"
double round_half_even(double x);
int main(void) {
	CHECK_NEAR(round_half_even(2.5), 2.0, 0);
	CHECK_NEAR(round_half_even(3.5), 4.0, 0);
	CHECK_NEAR(round_half_even(-2.5), -2.0, 0);
	CHECK_NEAR(round_half_even(2.4), 2.0, 0);
	CHECK_NEAR(round_half_even(2.6), 3.0, 0);
	CHECK_NEAR(round_half_even(-0.5), 0.0, 0);
	CHECK_NEAR(round_half_even(7.0), 7.0, 0);
	return 0;
}
