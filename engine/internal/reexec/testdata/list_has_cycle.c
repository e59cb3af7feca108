#include <stddef.h>

struct node {
	int value;
	struct node *next;
};

int list_has_cycle(const struct node *head) {
	const struct node *slow = head, *fast = head;
	while (fast && fast->next) {
		slow = slow->next;
		fast = fast->next->next;
		if (slow == fast)
			return 1;
	}
	return 0;
}
