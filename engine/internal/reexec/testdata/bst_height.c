#include <stddef.h>

struct tree {
	int key;
	struct tree *left, *right;
};

int bst_height(const struct tree *t) {
	if (!t)
		return 0;
	int l = bst_height(t->left), r = bst_height(t->right);
	return 1 + (l > r ? l : r);
}
