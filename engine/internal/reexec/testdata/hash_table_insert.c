#include <string.h>

struct entry {
	char key[16];
	int value;
	int used;
};

int hash_table_insert(struct entry *tab, int cap, const char *key, int value) {
	if (strlen(key) >= sizeof tab[0].key)
		return -1;
	unsigned h = 2166136261u;
	for (const char *p = key; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	for (int i = 0; i < cap; i++) {
		struct entry *e = &tab[(h + (unsigned)i) % (unsigned)cap];
		if (!e->used) {
			strcpy(e->key, key);
			e->value = value;
			e->used = 1;
			return 1;
		}
		if (strcmp(e->key, key) == 0) {
			e->value = value;
			return 0;
		}
	}
	return -2;
}
