#include "check.h"
#include <stdint.h>
int64_t vm_run(const uint8_t *code, int len, int64_t arg);
int main(void) {
	const uint8_t sq[] = {5, 4, 0};
	CHECK(vm_run(sq, 3, 7) == 49);
	const uint8_t add5[] = {1, 5, 2, 0};
	CHECK(vm_run(add5, 4, 10) == 15);
	const uint8_t neg[] = {1, 0xff, 4};
	CHECK(vm_run(neg, 3, 6) == -6);
	/* count down: push -1; add; dup; jnz -6; halt */
	const uint8_t cd[] = {1, 0xff, 2, 5, 7, 0xfa, 0};
	CHECK(vm_run(cd, 7, 5) == 0);
	CHECK(vm_run(cd, 7, -1) == -9999);
	const uint8_t bad[] = {2};
	CHECK(vm_run(bad, 1, 1) == -2);
	const uint8_t ill[] = {99};
	CHECK(vm_run(ill, 1, 1) == -4);
	const uint8_t loop[] = {5, 7, 0xfd};
	CHECK(vm_run(loop, 3, 1) == -9999);
	CHECK(vm_run(loop, 3, 0) == 0);
	CHECK(vm_run(sq, 0, 5) == 5);
	return 0;
}
