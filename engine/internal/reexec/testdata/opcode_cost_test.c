#include "check.h"
int opcode_cost(int op);
int main(void) {
	CHECK(opcode_cost(0) == 1);
	CHECK(opcode_cost(3) == 7);
	CHECK(opcode_cost(5) == 11);
	CHECK(opcode_cost(9) == 13);
	CHECK(opcode_cost(11) == 8);
	CHECK(opcode_cost(12) == -1);
	CHECK(opcode_cost(-1) == -1);
	CHECK(opcode_cost(2) == 3 && opcode_cost(7) == 4);
	return 0;
}
