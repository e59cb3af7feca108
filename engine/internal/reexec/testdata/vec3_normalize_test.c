#include "check.h"
struct vec3 {
	float x, y, z;
};
int vec3_normalize(struct vec3 *v);
int main(void) {
	struct vec3 v = {3, 0, 4};
	CHECK(vec3_normalize(&v) == 0);
	CHECK_NEAR(v.x, 0.6, 1e-6);
	CHECK_NEAR(v.y, 0.0, 1e-6);
	CHECK_NEAR(v.z, 0.8, 1e-6);
	struct vec3 z = {0, 0, 0};
	CHECK(vec3_normalize(&z) == -1);
	struct vec3 w = {-2, 0, 0};
	CHECK(vec3_normalize(&w) == 0);
	CHECK_NEAR(w.x, -1.0, 1e-6);
	return 0;
}
