package builtin

func (b *triageBuilder) pe() {
	id := b.t.Identity
	id["bitness"] = fact(map[bool]int{true: 64, false: 32}[b.img.is64], "header:OptionalHeader.Magic")
	id["endianness"] = fact("little", "header:Machine")
	id["image_base"] = fact("0x"+hexU(b.img.pe.imageBase), "header:OptionalHeader.ImageBase")
	b.limit("triage: PE hardening and toolchain facts are not read in this build")
}
