/* forker: a parent whose child outlives it in the same process group.
 *   forker [ignore-term]
 * The child prints "CHILD <pid>" and sleeps (ignoring SIGTERM when asked);
 * the parent prints "PARENT" and exits when a line arrives on stdin. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
	int ignore = argc >= 2 && strcmp(argv[1], "ignore-term") == 0;
	setvbuf(stdout, NULL, _IONBF, 0);
	pid_t pid = fork();
	if (pid < 0) return 1;
	if (pid == 0) {
		/* The session leader's exit hangs up the terminal's foreground
		 * group: ignore that, to outlive the parent. */
		signal(SIGHUP, SIG_IGN);
		if (ignore) signal(SIGTERM, SIG_IGN);
		printf("CHILD %d\n", (int)getpid());
		for (;;) sleep(60);
	}
	printf("PARENT\n");
	char line[64];
	if (fgets(line, sizeof line, stdin) == NULL) return 3;
	return 0;
}
