#include "check.h"
#include <stddef.h>
struct node {
	int value;
	struct node *next;
};
struct node *list_reverse(struct node *head);
int main(void) {
	struct node c = {3, NULL}, b = {2, &c}, a = {1, &b};
	struct node *r = list_reverse(&a);
	CHECK(r == &c && c.next == &b && b.next == &a && a.next == NULL);
	r = list_reverse(r);
	CHECK(r == &a && a.next == &b && b.next == &c && c.next == NULL);
	CHECK(list_reverse(NULL) == NULL);
	struct node s = {9, NULL};
	CHECK(list_reverse(&s) == &s && s.next == NULL);
	struct node y = {2, NULL}, x = {1, &y};
	CHECK(list_reverse(&x) == &y && y.next == &x);
	return 0;
}
