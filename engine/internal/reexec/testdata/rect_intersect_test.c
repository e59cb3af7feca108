#include "check.h"
struct rect {
	int x, y, w, h;
};
int rect_intersect(const struct rect *a, const struct rect *b, struct rect *out);
int main(void) {
	struct rect a = {0, 0, 10, 10}, b = {5, 5, 10, 10}, o = {0, 0, 0, 0};
	CHECK(rect_intersect(&a, &b, &o) == 1 && o.x == 5 && o.y == 5 && o.w == 5 && o.h == 5);
	struct rect c = {10, 0, 5, 5};
	CHECK(rect_intersect(&a, &c, &o) == 0);
	struct rect d = {2, 3, 1, 1};
	CHECK(rect_intersect(&a, &d, &o) == 1 && o.x == 2 && o.y == 3 && o.w == 1 && o.h == 1);
	struct rect e = {-5, -5, 6, 6};
	CHECK(rect_intersect(&a, &e, &o) == 1 && o.x == 0 && o.y == 0 && o.w == 1 && o.h == 1);
	CHECK(rect_intersect(&d, &e, &o) == 0);
	return 0;
}
