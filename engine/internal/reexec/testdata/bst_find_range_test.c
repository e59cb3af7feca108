#include "check.h"
#include <stddef.h>
struct tree {
	int key;
	struct tree *left, *right;
};
int bst_find_range(const struct tree *t, int lo, int hi);
int main(void) {
	struct tree n1 = {1, NULL, NULL}, n4 = {4, NULL, NULL}, n3 = {3, &n1, &n4}, n9 = {9, NULL, NULL},
		    n7 = {7, NULL, &n9}, root = {5, &n3, &n7};
	CHECK(bst_find_range(&root, 0, 100) == 6);
	CHECK(bst_find_range(&root, 3, 7) == 4);
	CHECK(bst_find_range(&root, 6, 6) == 0);
	CHECK(bst_find_range(&root, 9, 9) == 1);
	CHECK(bst_find_range(NULL, 0, 9) == 0);
	CHECK(bst_find_range(&root, 2, 4) == 2);
	return 0;
}
