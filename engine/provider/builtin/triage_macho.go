package builtin

func (b *triageBuilder) macho() {
	id := b.t.Identity
	id["bitness"] = fact(map[bool]int{true: 64, false: 32}[b.img.is64], "header:magic")
	id["endianness"] = fact(endianName(b.img.bo.Uint16([]byte{1, 0}) == 1), "header:magic")
	b.limit("triage: Mach-O hardening and toolchain facts are not read in this build")
}
