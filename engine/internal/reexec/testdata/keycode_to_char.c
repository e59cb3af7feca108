int keycode_to_char(int code, int shift) {
	switch (code) {
	case 2: return shift ? '!' : '1';
	case 3: return shift ? '@' : '2';
	case 4: return shift ? '#' : '3';
	case 5: return shift ? '$' : '4';
	case 6: return shift ? '%' : '5';
	case 7: return shift ? '^' : '6';
	case 8: return shift ? '&' : '7';
	case 9: return shift ? '*' : '8';
	case 10: return shift ? '(' : '9';
	case 11: return shift ? ')' : '0';
	case 12: return shift ? '_' : '-';
	case 13: return shift ? '+' : '=';
	case 16: return shift ? 'Q' : 'q';
	case 17: return shift ? 'W' : 'w';
	case 18: return shift ? 'E' : 'e';
	case 19: return shift ? 'R' : 'r';
	case 20: return shift ? 'T' : 't';
	case 21: return shift ? 'Y' : 'y';
	case 22: return shift ? 'U' : 'u';
	case 23: return shift ? 'I' : 'i';
	case 24: return shift ? 'O' : 'o';
	case 25: return shift ? 'P' : 'p';
	case 26: return shift ? '{' : '[';
	case 27: return shift ? '}' : ']';
	case 28: return '\n';
	case 30: return shift ? 'A' : 'a';
	case 31: return shift ? 'S' : 's';
	case 32: return shift ? 'D' : 'd';
	case 33: return shift ? 'F' : 'f';
	case 34: return shift ? 'G' : 'g';
	case 35: return shift ? 'H' : 'h';
	case 36: return shift ? 'J' : 'j';
	case 37: return shift ? 'K' : 'k';
	case 38: return shift ? 'L' : 'l';
	case 39: return shift ? ':' : ';';
	case 57: return ' ';
	default: return -1;
	}
}
