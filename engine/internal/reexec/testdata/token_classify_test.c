#include "check.h"
int token_classify(int c);
int main(void) {
	CHECK(token_classify(' ') == 0 && token_classify('\n') == 0);
	CHECK(token_classify('0') == 1 && token_classify('9') == 1);
	CHECK(token_classify('{') == 2 && token_classify(']') == 2);
	CHECK(token_classify('%') == 3 && token_classify('=') == 3);
	CHECK(token_classify(';') == 4);
	CHECK(token_classify('"') == 5 && token_classify('\'') == 5);
	CHECK(token_classify('q') == 6 && token_classify('_') == 6);
	CHECK(token_classify('@') == 7 && token_classify(200) == 7);
	return 0;
}
