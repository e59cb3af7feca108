#include <stdlib.h>
#include <string.h>

long str_tokenize_sum(const char *csv, int *fields) {
	char *copy = strdup(csv);
	if (!copy)
		return 0;
	long sum = 0;
	int n = 0;
	char *save = NULL;
	for (char *tok = strtok_r(copy, ",; ", &save); tok; tok = strtok_r(NULL, ",; ", &save)) {
		sum += strtol(tok, NULL, 10);
		n++;
	}
	free(copy);
	*fields = n;
	return sum;
}
