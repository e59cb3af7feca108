#include "check.h"
int elf_machine_bits(unsigned machine);
int main(void) {
	CHECK(elf_machine_bits(62) == 64);
	CHECK(elf_machine_bits(3) == 32);
	CHECK(elf_machine_bits(183) == 64);
	CHECK(elf_machine_bits(40) == 32);
	CHECK(elf_machine_bits(243) == 64);
	CHECK(elf_machine_bits(258) == 64);
	CHECK(elf_machine_bits(0) == 0 && elf_machine_bits(41) == 0 && elf_machine_bits(9999) == 0);
	return 0;
}
