#include <ctype.h>
#include <string.h>

int str_is_palindrome(const char *s) {
	size_t i = 0, j = strlen(s);
	while (i < j) {
		if (!isalnum((unsigned char)s[i])) {
			i++;
			continue;
		}
		if (!isalnum((unsigned char)s[j - 1])) {
			j--;
			continue;
		}
		if (tolower((unsigned char)s[i]) != tolower((unsigned char)s[j - 1]))
			return 0;
		i++;
		j--;
	}
	return 1;
}
