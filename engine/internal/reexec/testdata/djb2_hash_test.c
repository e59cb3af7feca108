#include "check.h"
#include <stdint.h>
uint32_t djb2_hash(const char *s);
int main(void) {
	CHECK(djb2_hash("") == 5381);
	CHECK(djb2_hash("a") == 177670);
	CHECK(djb2_hash("ab") == 5863208);
	CHECK(djb2_hash("hello") == 261238937u);
	CHECK(djb2_hash("\xe9") == 5381u * 33 + 0xe9);
	return 0;
}
