#include "check.h"
#include <stdint.h>
uint64_t fnv1a_hash(const char *s);
int main(void) {
	CHECK(fnv1a_hash("") == 0xcbf29ce484222325ull);
	CHECK(fnv1a_hash("a") == 0xaf63dc4c8601ec8cull);
	CHECK(fnv1a_hash("foobar") == 0x85944171f73967e8ull);
	CHECK(fnv1a_hash("\xff") != fnv1a_hash("\x7f"));
	CHECK(fnv1a_hash("ab") != fnv1a_hash("ba"));
	return 0;
}
