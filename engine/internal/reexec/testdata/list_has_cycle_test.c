#include "check.h"
#include <stddef.h>
struct node {
	int value;
	struct node *next;
};
int list_has_cycle(const struct node *head);
int main(void) {
	struct node n[5];
	for (int i = 0; i < 5; i++) {
		n[i].value = i;
		n[i].next = i < 4 ? &n[i + 1] : NULL;
	}
	CHECK(!list_has_cycle(&n[0]));
	n[4].next = &n[2];
	CHECK(list_has_cycle(&n[0]));
	CHECK(list_has_cycle(&n[3]));
	n[4].next = &n[4];
	CHECK(list_has_cycle(&n[4]));
	CHECK(!list_has_cycle(NULL));
	n[4].next = NULL;
	CHECK(!list_has_cycle(&n[4]));
	return 0;
}
