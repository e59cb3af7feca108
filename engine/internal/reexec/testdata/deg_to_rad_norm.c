#include <math.h>

double deg_to_rad_norm(double deg) {
	double d = fmod(deg, 360.0);
	if (d < 0)
		d += 360.0;
	return d * M_PI / 180.0;
}
