#include "check.h"
int stack_eval_rpn(const char *expr, long *result);
int main(void) {
	long r = 0;
	CHECK(stack_eval_rpn("3 4 +", &r) == 0 && r == 7);
	CHECK(stack_eval_rpn("5 1 2 + 4 * + 3 -", &r) == 0 && r == 14);
	CHECK(stack_eval_rpn("2 3 4 * -", &r) == 0 && r == -10);
	CHECK(stack_eval_rpn("1 0 /", &r) == -3);
	CHECK(stack_eval_rpn("1 +", &r) == -2);
	CHECK(stack_eval_rpn("1 2", &r) == -2);
	CHECK(stack_eval_rpn("1 2 ^", &r) == -4);
	CHECK(stack_eval_rpn("42", &r) == 0 && r == 42);
	return 0;
}
