#include <string.h>

int weekday_name_len(int day, char *out, int cap) {
	const char *name;
	switch (day) {
	case 0: name = "Sunday"; break;
	case 1: name = "Monday"; break;
	case 2: name = "Tuesday"; break;
	case 3: name = "Wednesday"; break;
	case 4: name = "Thursday"; break;
	case 5: name = "Friday"; break;
	case 6: name = "Saturday"; break;
	default: return -1;
	}
	int n = (int)strlen(name);
	if (n >= cap)
		return -2;
	memcpy(out, name, (size_t)n + 1);
	return n;
}
