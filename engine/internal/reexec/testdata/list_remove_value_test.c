#include "check.h"
#include <stdlib.h>
struct node {
	int value;
	struct node *next;
};
int list_remove_value(struct node **head, int value);
static struct node *build(const int *v, int n) {
	struct node *h = NULL;
	for (int i = n - 1; i >= 0; i--) {
		struct node *p = malloc(sizeof *p);
		p->value = v[i];
		p->next = h;
		h = p;
	}
	return h;
}
int main(void) {
	int v[6] = {7, 1, 7, 2, 7, 7};
	struct node *h = build(v, 6);
	CHECK(list_remove_value(&h, 7) == 4);
	CHECK(h && h->value == 1 && h->next && h->next->value == 2 && h->next->next == NULL);
	CHECK(list_remove_value(&h, 9) == 0);
	CHECK(list_remove_value(&h, 1) == 1 && h->value == 2);
	CHECK(list_remove_value(&h, 2) == 1 && h == NULL);
	CHECK(list_remove_value(&h, 2) == 0);
	return 0;
}
