#include "check.h"
#include <string.h>
struct counters {
	unsigned clicks, keys, scrolls, other;
	unsigned long total_weight;
};
void event_counter(struct counters *c, const int *events, int n);
int main(void) {
	struct counters c;
	memset(&c, 0, sizeof c);
	int e[8] = {1, 2, 2, 3, 4, 9, 0, 1};
	event_counter(&c, e, 8);
	CHECK(c.clicks == 2 && c.keys == 2 && c.scrolls == 2 && c.other == 2);
	CHECK(c.total_weight == 12);
	event_counter(&c, e, 0);
	CHECK(c.clicks == 2);
	event_counter(&c, e + 3, 1);
	CHECK(c.scrolls == 3 && c.total_weight == 14);
	event_counter(&c, e + 5, 1);
	CHECK(c.other == 3 && c.total_weight == 14);
	return 0;
}
