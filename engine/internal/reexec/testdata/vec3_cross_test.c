#include "check.h"
struct vec3d {
	double x, y, z;
};
void vec3_cross(const struct vec3d *a, const struct vec3d *b, struct vec3d *out);
int main(void) {
	struct vec3d i = {1, 0, 0}, j = {0, 1, 0}, o = {9, 9, 9};
	vec3_cross(&i, &j, &o);
	CHECK_NEAR(o.x, 0, 0);
	CHECK_NEAR(o.y, 0, 0);
	CHECK_NEAR(o.z, 1, 0);
	vec3_cross(&j, &i, &o);
	CHECK_NEAR(o.z, -1, 0);
	struct vec3d a = {2, 3, 4}, b = {5, 6, 7};
	vec3_cross(&a, &b, &o);
	CHECK(o.x == -3 && o.y == 6 && o.z == -3);
	vec3_cross(&a, &a, &a);
	CHECK(a.x == 0 && a.y == 0 && a.z == 0);
	return 0;
}
