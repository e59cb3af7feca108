#include <stddef.h>

struct node {
	int value;
	struct node *next;
};

struct node *list_reverse(struct node *head) {
	struct node *prev = NULL;
	while (head) {
		struct node *next = head->next;
		head->next = prev;
		prev = head;
		head = next;
	}
	return prev;
}
