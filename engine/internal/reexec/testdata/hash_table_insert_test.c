#include "check.h"
#include <string.h>
struct entry {
	char key[16];
	int value;
	int used;
};
int hash_table_insert(struct entry *tab, int cap, const char *key, int value);
static int get(struct entry *t, int cap, const char *k) {
	for (int i = 0; i < cap; i++)
		if (t[i].used && strcmp(t[i].key, k) == 0)
			return t[i].value;
	return -1;
}
int main(void) {
	struct entry t[4];
	memset(t, 0, sizeof t);
	CHECK(hash_table_insert(t, 4, "one", 1) == 1);
	CHECK(hash_table_insert(t, 4, "two", 2) == 1);
	CHECK(hash_table_insert(t, 4, "one", 11) == 0);
	CHECK(get(t, 4, "one") == 11 && get(t, 4, "two") == 2);
	CHECK(hash_table_insert(t, 4, "three", 3) == 1 && hash_table_insert(t, 4, "four", 4) == 1);
	CHECK(hash_table_insert(t, 4, "five", 5) == -2);
	CHECK(hash_table_insert(t, 4, "a-key-that-is-too-long", 5) == -1);
	CHECK(get(t, 4, "four") == 4);
	return 0;
}
