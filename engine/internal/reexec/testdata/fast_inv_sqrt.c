#include <stdint.h>
#include <string.h>

float fast_inv_sqrt(float x) {
	float half = 0.5f * x, y = x;
	uint32_t i;
	memcpy(&i, &y, sizeof i);
	i = 0x5f3759dfu - (i >> 1);
	memcpy(&y, &i, sizeof y);
	y = y * (1.5f - half * y * y);
	y = y * (1.5f - half * y * y);
	return y;
}
