#include "check.h"
int keycode_to_char(int code, int shift);
int main(void) {
	CHECK(keycode_to_char(2, 0) == '1' && keycode_to_char(2, 1) == '!');
	CHECK(keycode_to_char(11, 0) == '0');
	CHECK(keycode_to_char(16, 1) == 'Q' && keycode_to_char(25, 0) == 'p');
	CHECK(keycode_to_char(28, 1) == '\n');
	CHECK(keycode_to_char(38, 0) == 'l' && keycode_to_char(39, 1) == ':');
	CHECK(keycode_to_char(57, 1) == ' ');
	CHECK(keycode_to_char(14, 0) == -1 && keycode_to_char(29, 0) == -1);
	CHECK(keycode_to_char(0, 0) == -1 && keycode_to_char(58, 0) == -1 && keycode_to_char(-3, 1) == -1);
	return 0;
}
