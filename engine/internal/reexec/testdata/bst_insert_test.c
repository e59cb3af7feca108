#include "check.h"
#include <stddef.h>
struct tree {
	int key;
	struct tree *left, *right;
};
struct tree *bst_insert(struct tree *root, int key);
int main(void) {
	struct tree *r = bst_insert(NULL, 50);
	CHECK(r && r->key == 50 && !r->left && !r->right);
	CHECK(bst_insert(r, 30) == r && r->left && r->left->key == 30);
	bst_insert(r, 70);
	bst_insert(r, 40);
	CHECK(r->right && r->right->key == 70);
	CHECK(r->left->right && r->left->right->key == 40);
	bst_insert(r, 40);
	CHECK(r->left->right->left == NULL && r->left->right->right == NULL);
	bst_insert(r, 60);
	CHECK(r->right->left && r->right->left->key == 60);
	return 0;
}
