#include "check.h"
int game_of_life_step(unsigned char *grid, int w, int h);
int main(void) {
	unsigned char g[25] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
	CHECK(game_of_life_step(g, 5, 5) == 3);
	CHECK(g[11] == 1 && g[12] == 1 && g[13] == 1 && g[7] == 0 && g[17] == 0);
	CHECK(game_of_life_step(g, 5, 5) == 3 && g[7] == 1 && g[17] == 1 && g[11] == 0);
	unsigned char b[4] = {1, 1, 1, 1};
	CHECK(game_of_life_step(b, 2, 2) == 4);
	unsigned char s[1] = {1};
	CHECK(game_of_life_step(s, 1, 1) == 0 && s[0] == 0);
	CHECK(game_of_life_step(s, 33, 1) == -1);
	return 0;
}
