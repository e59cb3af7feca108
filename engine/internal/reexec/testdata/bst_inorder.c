#include <stddef.h>

struct tree {
	int key;
	struct tree *left, *right;
};

int bst_inorder(const struct tree *t, int *out, int pos) {
	if (!t)
		return pos;
	pos = bst_inorder(t->left, out, pos);
	out[pos++] = t->key;
	return bst_inorder(t->right, out, pos);
}
