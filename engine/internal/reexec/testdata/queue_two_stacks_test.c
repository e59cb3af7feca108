#include "check.h"
#include <string.h>
struct queue2 {
	int in[16], out[16];
	int nin, nout;
};
int queue_two_stacks(struct queue2 *q, int op, int value, int *got);
int main(void) {
	struct queue2 q;
	memset(&q, 0, sizeof q);
	int g = 0;
	CHECK(queue_two_stacks(&q, 1, 0, &g) == -2);
	CHECK(queue_two_stacks(&q, 0, 1, &g) == 0 && queue_two_stacks(&q, 0, 2, &g) == 0 && q.nin == 2);
	CHECK(queue_two_stacks(&q, 1, 0, &g) == 0 && g == 1);
	CHECK(queue_two_stacks(&q, 0, 3, &g) == 0);
	CHECK(queue_two_stacks(&q, 1, 0, &g) == 0 && g == 2);
	CHECK(queue_two_stacks(&q, 1, 0, &g) == 0 && g == 3);
	for (int i = 0; i < 16; i++)
		queue_two_stacks(&q, 0, i, &g);
	CHECK(queue_two_stacks(&q, 0, 99, &g) == -1);
	return 0;
}
