package builtin

import "strconv"

// Advanced SIMD (NEON) data processing, three registers of the same length,
// and VDUP from a core register: the part of NEON GCC's armv7-a string
// functions use. x is in the T32 layout (111U 1111 …); neonThumb converts
// the U bit's position for the shared table. Other NEON encodings are left
// to the caller's .inst.

// neon3Same renders a three-registers-same-length instruction; u is the U bit.
func neon3Same(x uint32, u bool, c string) (string, bool) {
	a, b, size := (x>>8)&15, x&(1<<4) != 0, (x>>20)&3
	q := x&(1<<6) != 0
	reg := func(v, hi uint32) string {
		n := hi<<4 | v
		if q {
			if n&1 != 0 {
				return "<illegal reg q" + strconv.Itoa(int(n>>1)) + ".5>"
			}
			return "q" + strconv.Itoa(int(n>>1))
		}
		return "d" + strconv.Itoa(int(n))
	}
	vd, vn, vm := reg(x>>12&15, x>>22&1), reg(x>>16&15, x>>7&1), reg(x&15, x>>5&1)
	bits := strconv.Itoa(8 << size)
	su := ".s" + bits
	if u {
		su = ".u" + bits
	}
	in := ".i" + bits
	f := ".f32"
	if size&1 != 0 {
		f = ".f16"
	}
	var mn, ty string
	pick := func(m0, m1 string) string {
		if u {
			return m1
		}
		return m0
	}
	hi := size>>1 != 0
	switch {
	case a == 0:
		mn, ty = [2]string{"vhadd", "vqadd"}[x>>4&1], su
	case a == 1 && !b:
		mn, ty = "vrhadd", su
	case a == 1:
		mn = [2][4]string{{"vand", "vbic", "vorr", "vorn"}, {"veor", "vbsl", "vbit", "vbif"}}[x>>28&1][size]
	case a == 2:
		mn, ty = [2]string{"vhsub", "vqsub"}[x>>4&1], su
	case a == 3:
		mn, ty = [2]string{"vcgt", "vcge"}[x>>4&1], su
	case a == 4:
		mn, ty = [2]string{"vshl", "vqshl"}[x>>4&1], su
	case a == 5:
		mn, ty = [2]string{"vrshl", "vqrshl"}[x>>4&1], su
	case a == 6:
		mn, ty = [2]string{"vmax", "vmin"}[x>>4&1], su
	case a == 7:
		mn, ty = [2]string{"vabd", "vaba"}[x>>4&1], su
	case a == 8 && !b:
		mn, ty = pick("vadd", "vsub"), in
	case a == 8:
		mn, ty = pick("vtst", "vceq"), in
	case a == 9 && !b:
		mn, ty = pick("vmla", "vmls"), in
	case a == 9:
		mn, ty = "vmul", in
		if u {
			ty = ".p8"
		}
	case a == 10:
		mn, ty = [2]string{"vpmax", "vpmin"}[x>>4&1], su
	case a == 11 && !b:
		mn, ty = pick("vqdmulh", "vqrdmulh"), ".s"+bits
	case a == 11 && !u:
		mn, ty = "vpadd", in
	case a == 12 && b && !u:
		mn, ty = [2]string{"vfma", "vfms"}[size>>1], f
	case a == 13 && !b && !u:
		mn, ty = [2]string{"vadd", "vsub"}[size>>1], f
	case a == 13 && !b:
		mn, ty = [2]string{"vpadd", "vabd"}[size>>1], f
	case a == 13 && !u:
		mn, ty = [2]string{"vmla", "vmls"}[size>>1], f
	case a == 13 && !hi:
		mn, ty = "vmul", f
	case a == 14 && !b && !u && !hi:
		mn, ty = "vceq", f
	case a == 14 && !b && u:
		mn, ty = [2]string{"vcge", "vcgt"}[size>>1], f
	case a == 14 && b && u:
		mn, ty = [2]string{"vacge", "vacgt"}[size>>1], f
	case a == 15 && !b:
		mn, ty = pick([2]string{"vmax", "vmin"}[size>>1], [2]string{"vpmax", "vpmin"}[size>>1]), f
	case a == 15 && !u:
		mn, ty = [2]string{"vrecps", "vrsqrts"}[size>>1], f
	case a == 15:
		mn, ty = [2]string{"vmaxnm", "vminnm"}[size>>1], f
	default:
		return "", false
	}
	if size == 3 && ty != "" && ty[1] != 'f' {
		if a == 0 || a == 2 || a >= 4 && a <= 5 || a == 8 {
			ty = ty[:2] + "64"
		} else {
			return "", false
		}
	}
	return mn + c + ty + " " + vd + ", " + vn + ", " + vm, true
}

// neonThumb renders the NEON encodings neon3Same and VDUP cover, in T32 layout.
func neonThumb(x uint32, c string) (string, bool) {
	if x&0xef800000 == 0xef000000 && x&0x10 == 0x10 || x&0xef800000 == 0xef000000 && x&0x10 == 0 {
		return neon3Same(x, x&(1<<28) != 0, c)
	}
	return "", false
}

// vdupText renders VDUP (core register), coprocessor 11 layout.
func vdupText(x uint32, c string) (string, bool) {
	if x&0x0f900f5f != 0x0e800b10 {
		return "", false
	}
	size := map[uint32]string{0: ".32", 1: ".16", 2: ".8"}[(x>>22&1)<<1|x>>5&1]
	if size == "" {
		return "", false
	}
	n := (x>>7&1)<<4 | x>>16&15
	reg := "d" + strconv.Itoa(int(n))
	if x&(1<<21) != 0 {
		reg = "q" + strconv.Itoa(int(n>>1))
	}
	return "vdup" + c + size + " " + reg + ", " + r(x>>12), true
}
