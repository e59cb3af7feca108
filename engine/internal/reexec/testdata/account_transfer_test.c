#include "check.h"
struct account {
	long id;
	long balance_cents;
	int frozen;
};
int account_transfer(struct account *from, struct account *to, long cents);
int main(void) {
	struct account a = {1, 1000, 0}, b = {2, 50, 0}, f = {3, 999, 1};
	CHECK(account_transfer(&a, &b, 300) == 0 && a.balance_cents == 700 && b.balance_cents == 350);
	CHECK(account_transfer(&a, &b, 0) == -1);
	CHECK(account_transfer(&a, &f, 1) == -2 && a.balance_cents == 700);
	CHECK(account_transfer(&a, &a, 1) == -3);
	CHECK(account_transfer(&b, &a, 351) == -4 && b.balance_cents == 350);
	CHECK(account_transfer(&b, &a, 350) == 0 && b.balance_cents == 0 && a.balance_cents == 1050);
	return 0;
}
