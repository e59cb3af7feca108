#include "check.h"
#include <stdlib.h>
struct tree {
	int key;
	struct tree *left, *right;
};
int tree_free_count(struct tree *t);
static struct tree *mk(int k, struct tree *l, struct tree *r) {
	struct tree *t = malloc(sizeof *t);
	t->key = k;
	t->left = l;
	t->right = r;
	return t;
}
int main(void) {
	CHECK(tree_free_count(NULL) == 0);
	CHECK(tree_free_count(mk(1, NULL, NULL)) == 1);
	CHECK(tree_free_count(mk(1, mk(2, NULL, NULL), NULL)) == 2);
	CHECK(tree_free_count(mk(1, mk(2, mk(3, NULL, NULL), NULL), mk(4, NULL, mk(5, NULL, NULL)))) == 5);
	CHECK(tree_free_count(mk(0, NULL, mk(0, NULL, mk(0, NULL, NULL)))) == 3);
	return 0;
}
