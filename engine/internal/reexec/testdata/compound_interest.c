#include <math.h>

double compound_interest(double principal, double rate, int periods_per_year, int years) {
	if (periods_per_year <= 0 || years < 0)
		return -1.0;
	return principal * pow(1.0 + rate / periods_per_year, (double)periods_per_year * years);
}
