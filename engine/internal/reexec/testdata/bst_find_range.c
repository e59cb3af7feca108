#include <stddef.h>

struct tree {
	int key;
	struct tree *left, *right;
};

int bst_find_range(const struct tree *t, int lo, int hi) {
	int n = 0;
	while (t) {
		if (t->key < lo) {
			t = t->right;
		} else if (t->key > hi) {
			t = t->left;
		} else {
			n += 1 + bst_find_range(t->left, lo, hi);
			t = t->right;
		}
	}
	return n;
}
