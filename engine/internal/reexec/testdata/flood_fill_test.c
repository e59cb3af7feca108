#include "check.h"
#include <string.h>
int flood_fill(unsigned char *grid, int w, int h, int x, int y, unsigned char from, unsigned char to);
int main(void) {
	unsigned char g[20];
	memcpy(g, "..#...#.#....#......", 20); /* 5 x 4 */
	CHECK(flood_fill(g, 5, 4, 0, 0, '.', 'o') == 16);
	CHECK(g[0] == 'o' && g[2] == '#' && g[19] == 'o');
	CHECK(flood_fill(g, 5, 4, 2, 0, '#', '#') == 0);
	CHECK(flood_fill(g, 5, 4, 2, 0, '#', 'x') == 1 && g[2] == 'x');
	CHECK(flood_fill(g, 5, 4, 9, 0, 'o', 'z') == 0);
	CHECK(flood_fill(g, 5, 4, 0, 0, '.', 'z') == 0);
	return 0;
}
