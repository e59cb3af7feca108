#include "check.h"
#include <stdlib.h>
#include <string.h>
char *str_dup_upper(const char *s);
int main(void) {
	char *r = str_dup_upper("Hello, World!");
	CHECK(r != NULL && strcmp(r, "HELLO, WORLD!") == 0);
	free(r);
	r = str_dup_upper("");
	CHECK(r != NULL && r[0] == 0);
	free(r);
	r = str_dup_upper("abc xyz 123 {}");
	CHECK(r != NULL && strcmp(r, "ABC XYZ 123 {}") == 0);
	free(r);
	r = str_dup_upper("`az{");
	CHECK(r != NULL && strcmp(r, "`AZ{") == 0);
	free(r);
	r = str_dup_upper("\xe9t\xe9");
	CHECK(r != NULL && strcmp(r, "\xe9T\xe9") == 0);
	free(r);
	return 0;
}
