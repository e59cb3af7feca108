#include "check.h"
double celsius_to_f(double c);
int main(void) {
	CHECK_NEAR(celsius_to_f(0), 32.0, 1e-12);
	CHECK_NEAR(celsius_to_f(100), 212.0, 1e-12);
	CHECK_NEAR(celsius_to_f(-40), -40.0, 1e-12);
	CHECK_NEAR(celsius_to_f(37), 98.6, 1e-12);
	CHECK_NEAR(celsius_to_f(-273.15), -459.67, 1e-12);
	return 0;
}
