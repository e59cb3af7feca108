#include <math.h>

float cbrt_newton_f(float x) {
	if (x == 0.0f)
		return 0.0f;
	float s = x < 0 ? -1.0f : 1.0f, a = fabsf(x);
	float g = a > 1.0f ? a / 3.0f : 1.0f;
	for (int i = 0; i < 60; i++)
		g = g - (g * g * g - a) / (3.0f * g * g);
	return s * g;
}
