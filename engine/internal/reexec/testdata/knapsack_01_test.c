#include "check.h"
int knapsack_01(const int *w, const int *v, int n, int cap);
int main(void) {
	int w[3] = {10, 20, 30}, v[3] = {60, 100, 120};
	CHECK(knapsack_01(w, v, 3, 50) == 220);
	CHECK(knapsack_01(w, v, 3, 0) == 0);
	CHECK(knapsack_01(w, v, 3, 10) == 60);
	CHECK(knapsack_01(w, v, 3, 60) == 280);
	CHECK(knapsack_01(w, v, 0, 60) == 0);
	CHECK(knapsack_01(w, v, 3, 1001) == -1);
	CHECK(knapsack_01(w, v, 1, 5) == 0);
	return 0;
}
