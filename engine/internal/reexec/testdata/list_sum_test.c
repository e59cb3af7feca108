#include "check.h"
#include <stddef.h>
struct node {
	int value;
	struct node *next;
};
long list_sum(const struct node *head);
int main(void) {
	struct node c = {3, NULL}, b = {-20, &c}, a = {100, &b};
	CHECK(list_sum(&a) == 83);
	CHECK(list_sum(&b) == -17);
	CHECK(list_sum(&c) == 3);
	CHECK(list_sum(NULL) == 0);
	struct node big2 = {2147483647, NULL}, big1 = {2147483647, &big2};
	CHECK(list_sum(&big1) == 4294967294L);
	return 0;
}
