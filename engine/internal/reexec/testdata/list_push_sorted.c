#include <stdlib.h>

struct node {
	int value;
	struct node *next;
};

int list_push_sorted(struct node **head, int value) {
	struct node *n = malloc(sizeof *n);
	if (!n)
		return -1;
	n->value = value;
	struct node **pp = head;
	while (*pp && (*pp)->value < value)
		pp = &(*pp)->next;
	n->next = *pp;
	*pp = n;
	return 0;
}
