#include "check.h"
#include <stdint.h>
void scale_clamp_u8(uint8_t *px, int n, int num, int den);
int main(void) {
	uint8_t p[40];
	for (int i = 0; i < 40; i++)
		p[i] = (uint8_t)(i * 6);
	scale_clamp_u8(p, 40, 3, 2);
	CHECK(p[0] == 0 && p[1] == 9 && p[10] == 90 && p[28] == 252 && p[29] == 255 && p[39] == 255);
	scale_clamp_u8(p, 2, -1, 1);
	CHECK(p[0] == 0 && p[1] == 0);
	p[2] = 200;
	scale_clamp_u8(p + 2, 1, 1, 2);
	CHECK(p[2] == 100);
	scale_clamp_u8(p, 0, 9, 1);
	CHECK(p[2] == 100);
	CHECK(p[10] == 90);
	return 0;
}
