#include "check.h"
#include <string.h>
const char *x86_reg_name(int reg, int size);
int main(void) {
	CHECK(strcmp(x86_reg_name(0, 8), "rax") == 0);
	CHECK(strcmp(x86_reg_name(7, 8), "rdi") == 0);
	CHECK(strcmp(x86_reg_name(15, 4), "r15d") == 0);
	CHECK(strcmp(x86_reg_name(4, 4), "esp") == 0);
	CHECK(strcmp(x86_reg_name(16, 8), "?") == 0);
	CHECK(strcmp(x86_reg_name(-1, 8), "?") == 0);
	CHECK(strcmp(x86_reg_name(3, 2), "?") == 0);
	return 0;
}
