#include "check.h"
#include <string.h>
const char *http_status_class(int code);
int main(void) {
	CHECK(strcmp(http_status_class(200), "OK") == 0);
	CHECK(strcmp(http_status_class(204), "No Content") == 0);
	CHECK(strcmp(http_status_class(226), "IM Used") == 0);
	CHECK(strcmp(http_status_class(203), "Unknown") == 0);
	CHECK(strcmp(http_status_class(101), "Informational") == 0);
	CHECK(strcmp(http_status_class(404), "Client Error") == 0);
	CHECK(strcmp(http_status_class(503), "Server Error") == 0);
	CHECK(strcmp(http_status_class(302), "Redirection") == 0);
	CHECK(strcmp(http_status_class(600), "Unknown") == 0);
	return 0;
}
