package mrz

// CheckDigit computes the ICAO 9303-3 check digit of s, as the ASCII
// digit '0'…'9': each character takes a value ('0'…'9' are 0…9, 'A'…'Z'
// are 10…35, the filler '<' is 0), the values are weighted 7, 3, 1, 7, 3,
// 1… and summed, and the digit is the sum modulo 10. Bytes outside the MRZ
// alphabet count as 0 too: Parse never passes any.
func CheckDigit(s string) byte {
	weights := [3]int{7, 3, 1}
	sum := 0
	for i := range len(s) {
		v := 0
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			v = int(c - '0')
		case c >= 'A' && c <= 'Z':
			v = int(c-'A') + 10
		}
		sum += v * weights[i%3]
	}
	return byte('0' + sum%10)
}
