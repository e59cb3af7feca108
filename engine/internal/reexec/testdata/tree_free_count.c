#include <stdlib.h>

struct tree {
	int key;
	struct tree *left, *right;
};

int tree_free_count(struct tree *t) {
	if (!t)
		return 0;
	int n = 1 + tree_free_count(t->left) + tree_free_count(t->right);
	free(t);
	return n;
}
