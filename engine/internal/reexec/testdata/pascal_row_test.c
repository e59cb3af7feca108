#include "check.h"
#include <stdint.h>
#include <stdlib.h>
uint64_t *pascal_row(int n);
int main(void) {
	uint64_t *r = pascal_row(4);
	CHECK(r && r[0] == 1 && r[1] == 4 && r[2] == 6 && r[3] == 4 && r[4] == 1);
	free(r);
	r = pascal_row(0);
	CHECK(r && r[0] == 1);
	free(r);
	r = pascal_row(40);
	CHECK(r && r[20] == 137846528820ull && r[40] == 1);
	free(r);
	CHECK(pascal_row(-1) == NULL);
	CHECK(pascal_row(67) == NULL);
	return 0;
}
