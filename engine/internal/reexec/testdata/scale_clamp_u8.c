#include <stdint.h>

void scale_clamp_u8(uint8_t *px, int n, int num, int den) {
	for (int i = 0; i < n; i++) {
		int v = px[i] * num / den;
		px[i] = (uint8_t)(v > 255 ? 255 : v < 0 ? 0 : v);
	}
}
