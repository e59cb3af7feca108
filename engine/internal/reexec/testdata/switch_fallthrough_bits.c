unsigned switch_fallthrough_bits(int level) {
	unsigned flags = 0;
	switch (level) {
	case 5:
		flags |= 0x20;
		/* fall through */
	case 4:
		flags |= 0x10;
		/* fall through */
	case 3:
		flags |= 0x08;
		/* fall through */
	case 2:
		flags |= 0x04;
		/* fall through */
	case 1:
		flags |= 0x02;
		/* fall through */
	case 0:
		flags |= 0x01;
		break;
	default:
		flags = 0x80000000u;
	}
	return flags;
}
