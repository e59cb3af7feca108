package arm64

// unmodelledReason names the family of an instruction the lifter does not
// model, for the limitation later stages report.
func unmodelledReason(enc uint32, _ string) string {
	switch {
	case enc&0xffe0001f == 0xd4000001, enc&0xffe0001f == 0xd4200000, enc&0xfff00000 == 0xd5300000,
		enc&0xfff00000 == 0xd5100000, enc&0xfffff000 == 0xd5033000:
		return "system instruction (svc, brk, mrs, msr, barriers)"
	case enc&0x3f000000 == 0x08000000:
		return "exclusive, acquire/release or atomic memory access"
	case enc&0x3b200c00 == 0x38200000:
		return "atomic memory operation (LSE)"
	case enc&0x5e000000 == 0x1e000000:
		return "floating point form not modelled (half precision, fccmp, fixed-point conversions)"
	case enc&0x0e000000 == 0x0e000000:
		return "AdvSIMD form not modelled"
	case enc&0xfe000000 == 0xd6000000:
		return "branch with pointer authentication"
	}
	return "instruction not modelled"
}
