#include "check.h"
#include <stdlib.h>
#include <string.h>
char *str_vowel_strip(const char *s, size_t *removed);
int main(void) {
	size_t n = 99;
	char *r = str_vowel_strip("Education", &n);
	CHECK(r && strcmp(r, "dctn") == 0 && n == 5);
	free(r);
	r = str_vowel_strip("", &n);
	CHECK(r && r[0] == 0 && n == 0);
	free(r);
	r = str_vowel_strip("rhythm", &n);
	CHECK(r && strcmp(r, "rhythm") == 0 && n == 0);
	free(r);
	r = str_vowel_strip("aeiou", &n);
	CHECK(r && r[0] == 0 && n == 5);
	free(r);
	r = str_vowel_strip("x-AxE", &n);
	CHECK(r && strcmp(r, "x-x") == 0 && n == 2);
	free(r);
	return 0;
}
