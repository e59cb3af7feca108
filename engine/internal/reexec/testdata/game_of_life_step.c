#include <string.h>

int game_of_life_step(unsigned char *grid, int w, int h) {
	unsigned char next[32 * 32];
	if (w <= 0 || h <= 0 || w > 32 || h > 32)
		return -1;
	int alive = 0;
	for (int y = 0; y < h; y++) {
		for (int x = 0; x < w; x++) {
			int n = 0;
			for (int dy = -1; dy <= 1; dy++)
				for (int dx = -1; dx <= 1; dx++) {
					if (!dx && !dy)
						continue;
					int yy = y + dy, xx = x + dx;
					if (yy >= 0 && yy < h && xx >= 0 && xx < w)
						n += grid[yy * w + xx];
				}
			int c = grid[y * w + x];
			next[y * w + x] = (unsigned char)(n == 3 || (c && n == 2));
			alive += next[y * w + x];
		}
	}
	memcpy(grid, next, (size_t)(w * h));
	return alive;
}
