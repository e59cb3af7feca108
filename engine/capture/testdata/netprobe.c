/* netprobe: the network reach of a captured process.
 *   netprobe self        listen on 127.0.0.1:0, connect to it, exchange a byte
 *   netprobe connect P   connect to 127.0.0.1:P (a listener outside)
 * Prints one line: "<MODE>_OK" or "<MODE>_FAIL <errno name>". */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int fail(const char *mode, const char *step) {
	printf("%s_FAIL %s %s\n", mode, step, strerror(errno));
	return 1;
}

int main(int argc, char **argv) {
	struct sockaddr_in a;
	socklen_t alen = sizeof a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc >= 2 && strcmp(argv[1], "self") == 0) {
		int l = socket(AF_INET, SOCK_STREAM, 0);
		if (l < 0) return fail("SELF", "socket");
		if (bind(l, (struct sockaddr *)&a, sizeof a) < 0) return fail("SELF", "bind");
		if (listen(l, 1) < 0) return fail("SELF", "listen");
		if (getsockname(l, (struct sockaddr *)&a, &alen) < 0) return fail("SELF", "getsockname");
		int c = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(c, (struct sockaddr *)&a, sizeof a) < 0) return fail("SELF", "connect");
		int s = accept(l, NULL, NULL);
		if (s < 0) return fail("SELF", "accept");
		char b = 'x';
		if (write(c, &b, 1) != 1 || read(s, &b, 1) != 1 || b != 'x') return fail("SELF", "exchange");
		printf("SELF_OK\n");
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "connect") == 0) {
		a.sin_port = htons((unsigned short)atoi(argv[2]));
		int c = socket(AF_INET, SOCK_STREAM, 0);
		if (c < 0) return fail("CONNECT", "socket");
		if (connect(c, (struct sockaddr *)&a, sizeof a) < 0) return fail("CONNECT", "connect");
		printf("CONNECT_OK\n");
		return 0;
	}
	fprintf(stderr, "usage: netprobe self | connect PORT\n");
	return 2;
}
