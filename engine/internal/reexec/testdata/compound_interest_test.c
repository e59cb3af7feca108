#include "check.h"
double compound_interest(double principal, double rate, int periods_per_year, int years);
int main(void) {
	CHECK_NEAR(compound_interest(1000, 0.05, 1, 1), 1050.0, 1e-9);
	CHECK_NEAR(compound_interest(1000, 0.05, 1, 0), 1000.0, 1e-9);
	CHECK_NEAR(compound_interest(1000, 0.12, 12, 1), 1126.8250301319697, 1e-9);
	CHECK_NEAR(compound_interest(1000, 0.05, 0, 1), -1.0, 1e-12);
	CHECK_NEAR(compound_interest(1000, 0.05, 1, -1), -1.0, 1e-12);
	CHECK_NEAR(compound_interest(500, 0, 4, 10), 500.0, 1e-12);
	return 0;
}
