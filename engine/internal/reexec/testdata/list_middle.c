#include <stddef.h>

struct node {
	int value;
	struct node *next;
};

const struct node *list_middle(const struct node *head) {
	const struct node *slow = head, *fast = head;
	while (fast && fast->next) {
		slow = slow->next;
		fast = fast->next->next;
	}
	return slow;
}
