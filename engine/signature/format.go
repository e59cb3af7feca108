package signature

// conversion is one argument a printf format consumes.
type conversion struct {
	float bool
	// size: 'l' long, 'L' long long or long double, 'j' intmax_t, 'z'
	// size_t, 't' ptrdiff_t, 'h' short, 'H' char, 0 int; 'p' a pointer,
	// 's' a string, 'n' a pointer.
	size byte
}

func (c conversion) width(ptr int) int {
	switch c.size {
	case 'L', 'j':
		return 64
	case 'l', 'z', 't', 'p':
		return ptr
	}
	if c.float {
		return 64
	}
	return 32
}

// maxConversions bounds what a format string may ask for.
const maxConversions = 64

// printfArgs lists the arguments the printf format s consumes, in order;
// false when s uses positional arguments (%1$d) or more conversions than
// the bound, or ends inside a conversion.
func printfArgs(s string) ([]conversion, bool) {
	var out []conversion
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		i++
		if i < len(s) && s[i] == '%' {
			continue
		}
		// flags
		for i < len(s) && (s[i] == '-' || s[i] == '+' || s[i] == ' ' || s[i] == '#' || s[i] == '0' || s[i] == '\'') {
			i++
		}
		// width
		if i < len(s) && s[i] == '*' {
			out = append(out, conversion{})
			i++
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i < len(s) && s[i] == '$' {
			return nil, false
		}
		// precision
		if i < len(s) && s[i] == '.' {
			i++
			if i < len(s) && s[i] == '*' {
				out = append(out, conversion{})
				i++
			}
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
		}
		// length
		var size byte
		for i < len(s) {
			switch s[i] {
			case 'h':
				if size == 'h' {
					size = 'H'
				} else {
					size = 'h'
				}
			case 'l':
				if size == 'l' {
					size = 'L'
				} else {
					size = 'l'
				}
			case 'L', 'q':
				size = 'L'
			case 'j', 'z', 't':
				size = s[i]
			default:
				goto conv
			}
			i++
		}
	conv:
		if i >= len(s) {
			return nil, false
		}
		switch s[i] {
		case 'd', 'i', 'u', 'o', 'x', 'X', 'c':
			out = append(out, conversion{size: size})
		case 'f', 'F', 'e', 'E', 'g', 'G', 'a', 'A':
			out = append(out, conversion{float: true, size: size})
		case 's', 'p', 'n':
			out = append(out, conversion{size: 'p'})
		case 'm':
			// glibc: strerror(errno), no argument
		default:
			return nil, false
		}
		if len(out) > maxConversions {
			return nil, false
		}
	}
	return out, true
}
