#include "check.h"
#include <string.h>
struct ring {
	int data[8];
	unsigned head, tail, count;
};
int ring_buffer_push(struct ring *r, int v, int overwrite);
int main(void) {
	struct ring r;
	memset(&r, 0, sizeof r);
	CHECK(ring_buffer_push(&r, 10, 0) == 1 && r.data[0] == 10 && r.tail == 1);
	for (int i = 1; i < 8; i++)
		CHECK(ring_buffer_push(&r, 10 + i, 0) == i + 1);
	CHECK(r.tail == 0 && r.count == 8);
	CHECK(ring_buffer_push(&r, 99, 0) == -1 && r.data[0] == 10);
	CHECK(ring_buffer_push(&r, 99, 1) == 8 && r.data[0] == 99 && r.head == 1 && r.tail == 1);
	CHECK(ring_buffer_push(&r, 98, 1) == 8 && r.data[1] == 98 && r.head == 2);
	return 0;
}
