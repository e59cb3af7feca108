#include "check.h"
#include <stddef.h>
struct tree {
	int key;
	struct tree *left, *right;
};
int bst_height(const struct tree *t);
int main(void) {
	struct tree d = {1, NULL, NULL}, c = {3, &d, NULL}, b = {7, NULL, NULL}, a = {5, &c, &b};
	CHECK(bst_height(NULL) == 0);
	CHECK(bst_height(&d) == 1);
	CHECK(bst_height(&c) == 2);
	CHECK(bst_height(&a) == 3);
	CHECK(bst_height(&b) == 1);
	struct tree e = {0, NULL, NULL};
	d.left = &e;
	CHECK(bst_height(&a) == 4);
	return 0;
}
