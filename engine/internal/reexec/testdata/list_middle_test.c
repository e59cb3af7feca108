#include "check.h"
#include <stddef.h>
struct node {
	int value;
	struct node *next;
};
const struct node *list_middle(const struct node *head);
int main(void) {
	struct node n[6];
	for (int i = 0; i < 6; i++) {
		n[i].value = i;
		n[i].next = i < 5 ? &n[i + 1] : NULL;
	}
	CHECK(list_middle(&n[0]) == &n[3]);
	CHECK(list_middle(&n[1]) == &n[3]);
	CHECK(list_middle(&n[4]) == &n[5]);
	CHECK(list_middle(&n[5]) == &n[5]);
	CHECK(list_middle(NULL) == NULL);
	return 0;
}
