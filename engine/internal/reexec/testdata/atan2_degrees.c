#include <math.h>

double atan2_degrees(double y, double x) {
	if (x == 0 && y == 0)
		return 0.0;
	double d = atan2(y, x) * 180.0 / M_PI;
	return d < 0 ? d + 360.0 : d;
}
