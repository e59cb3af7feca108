#include <stdlib.h>

struct node {
	int value;
	struct node *next;
};

int list_remove_value(struct node **head, int value) {
	int removed = 0;
	struct node **pp = head;
	while (*pp) {
		if ((*pp)->value == value) {
			struct node *dead = *pp;
			*pp = dead->next;
			free(dead);
			removed++;
		} else {
			pp = &(*pp)->next;
		}
	}
	return removed;
}
