#include "check.h"
struct point {
	double x, y;
};
int point_centroid(const struct point *pts, int n, struct point *out);
int main(void) {
	struct point p[4] = {{0, 0}, {4, 0}, {4, 2}, {0, 2}}, c = {-1, -1};
	CHECK(point_centroid(p, 4, &c) == 0);
	CHECK_NEAR(c.x, 2.0, 1e-12);
	CHECK_NEAR(c.y, 1.0, 1e-12);
	CHECK(point_centroid(p + 2, 1, &c) == 0);
	CHECK_NEAR(c.x, 4.0, 1e-12);
	CHECK_NEAR(c.y, 2.0, 1e-12);
	CHECK(point_centroid(p, 0, &c) == -1);
	return 0;
}
