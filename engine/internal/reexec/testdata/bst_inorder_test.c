#include "check.h"
#include <stddef.h>
struct tree {
	int key;
	struct tree *left, *right;
};
int bst_inorder(const struct tree *t, int *out, int pos);
int main(void) {
	struct tree d = {1, NULL, NULL}, c = {3, &d, NULL}, b = {7, NULL, NULL}, a = {5, &c, &b};
	int o[8] = {0};
	CHECK(bst_inorder(&a, o, 0) == 4);
	CHECK(o[0] == 1 && o[1] == 3 && o[2] == 5 && o[3] == 7);
	CHECK(bst_inorder(NULL, o, 2) == 2);
	CHECK(bst_inorder(&b, o, 4) == 5 && o[4] == 7);
	CHECK(bst_inorder(&c, o, 0) == 2 && o[0] == 1 && o[1] == 3);
	return 0;
}
