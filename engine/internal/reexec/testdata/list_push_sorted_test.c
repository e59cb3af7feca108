#include "check.h"
#include <stddef.h>
#include <stdlib.h>
struct node {
	int value;
	struct node *next;
};
int list_push_sorted(struct node **head, int value);
int main(void) {
	struct node *h = NULL;
	CHECK(list_push_sorted(&h, 5) == 0 && h && h->value == 5);
	CHECK(list_push_sorted(&h, 1) == 0 && h->value == 1 && h->next->value == 5);
	CHECK(list_push_sorted(&h, 9) == 0 && h->next->next->value == 9);
	CHECK(list_push_sorted(&h, 5) == 0);
	int want[4] = {1, 5, 5, 9}, i = 0;
	for (struct node *p = h; p; p = p->next, i++)
		CHECK(i < 4 && p->value == want[i]);
	CHECK(i == 4);
	while (h) {
		struct node *n = h->next;
		free(h);
		h = n;
	}
	return 0;
}
