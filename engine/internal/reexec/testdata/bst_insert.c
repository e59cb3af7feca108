#include <stdlib.h>

struct tree {
	int key;
	struct tree *left, *right;
};

struct tree *bst_insert(struct tree *root, int key) {
	if (!root) {
		struct tree *t = malloc(sizeof *t);
		if (!t)
			return NULL;
		t->key = key;
		t->left = t->right = NULL;
		return t;
	}
	if (key < root->key)
		root->left = bst_insert(root->left, key);
	else if (key > root->key)
		root->right = bst_insert(root->right, key);
	return root;
}
