#include <math.h>

struct vec3 {
	float x, y, z;
};

int vec3_normalize(struct vec3 *v) {
	float len = sqrtf(v->x * v->x + v->y * v->y + v->z * v->z);
	if (len == 0.0f)
		return -1;
	v->x /= len;
	v->y /= len;
	v->z /= len;
	return 0;
}
