#include <math.h>

double hypot3(double x, double y, double z) {
	return sqrt(x * x + y * y + z * z);
}
