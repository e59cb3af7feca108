#include "check.h"
struct item {
	const char *name;
	int qty;
	double unit_price;
	int category;
};
double inventory_total(const struct item *items, int n, int category, int *count);
int main(void) {
	struct item it[4] = {{"bolt", 10, 0.25, 1}, {"nut", 20, 0.1, 1}, {"saw", 1, 19.99, 2}, {"gone", 0, 5, 2}};
	int c = -1;
	CHECK_NEAR(inventory_total(it, 4, -1, &c), 24.49, 1e-12);
	CHECK(c == 3);
	CHECK_NEAR(inventory_total(it, 4, 1, &c), 4.5, 1e-12);
	CHECK(c == 2);
	CHECK_NEAR(inventory_total(it, 4, 2, &c), 19.99, 1e-12);
	CHECK(c == 1);
	CHECK_NEAR(inventory_total(it, 4, 7, &c), 0, 0);
	CHECK(c == 0);
	return 0;
}
