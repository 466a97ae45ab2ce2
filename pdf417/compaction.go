package pdf417

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
)

// Mode codewords of ISO/IEC 15438 §5.4.
const (
	latchText    = 900
	latchByte    = 901
	latchNumeric = 902
	macroOption  = 923
	macroEnd     = 922
	readerInit   = 921
	latchByte6   = 924
	eciUser      = 925
	eciGeneral   = 926
	eciCharset   = 927
	macroBlock   = 928
	shiftByte    = 913
)

// Macro is the Macro PDF417 control block (§H of ISO/IEC 15438): the
// place of this symbol in a message spread over several symbols. The
// reader reports it and does not join segments.
type Macro struct {
	SegmentIndex int
	FileID       string
	LastSegment  bool
}

// ErrFormat is returned for codeword streams that break the symbology's
// grammar: a reader must refuse them rather than guess.
var ErrFormat = errors.New("pdf417: malformed codeword stream")

// DecodeCodewords turns the data codewords of a symbol (the symbol length
// descriptor first, no correction codewords) into the message bytes. It
// never panics on any input: it is the parser of what a camera read.
func DecodeCodewords(cw []int) ([]byte, *Macro, error) {
	if len(cw) == 0 || cw[0] != len(cw) {
		return nil, nil, fmt.Errorf("%w: length descriptor", ErrFormat)
	}
	var out []byte
	var macro *Macro
	t := textState{}
	i := 1
	for i < len(cw) {
		c := cw[i]
		if c < 0 || c >= mod {
			return nil, nil, fmt.Errorf("%w: codeword %d out of range", ErrFormat, c)
		}
		switch {
		case c == latchText:
			t = textState{}
			i++
		case c == latchByte || c == latchByte6:
			b, n, err := decodeBytes(cw[i+1:], c == latchByte6)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, b...)
			i += 1 + n
			t = textState{} // after a byte run, text restarts in Alpha
		case c == latchNumeric:
			d, n, err := decodeNumeric(cw[i+1:])
			if err != nil {
				return nil, nil, err
			}
			out = append(out, d...)
			i += 1 + n
			t = textState{}
		case c == shiftByte:
			if i+1 >= len(cw) || cw[i+1] >= 256 {
				return nil, nil, fmt.Errorf("%w: byte shift", ErrFormat)
			}
			out = append(out, byte(cw[i+1]))
			t.shift = -1 // a pending Punct shift was padding
			i += 2
		case c == eciUser || c == eciCharset:
			i += 2 // the ECI number is read and not applied: AAMVA is ASCII
		case c == eciGeneral:
			i += 3
		case c == readerInit:
			i++
		case c == macroBlock:
			m, err := decodeMacro(cw[i+1:])
			if err != nil {
				return nil, nil, err
			}
			macro = m
			i = len(cw)
		case c == macroOption || c == macroEnd:
			// Only valid inside a control block, which ends the data.
			return nil, nil, fmt.Errorf("%w: macro codeword outside a control block", ErrFormat)
		case c >= 900:
			return nil, nil, fmt.Errorf("%w: reserved codeword %d", ErrFormat, c)
		default:
			out = t.decode(out, c)
			i++
		}
	}
	if i > len(cw) {
		return nil, nil, fmt.Errorf("%w: truncated mode parameter", ErrFormat)
	}
	return out, macro, nil
}

// Text compaction submodes and their characters (§5.4.1, Table 2). The
// values 26–29 are latches and shifts, handled in decode.
const (
	subAlpha = iota
	subLower
	subMixed
	subPunct
)

const (
	mixedChars = "0123456789&\r\t,:#-.$/+%*=^"
	punctChars = ";<>@[\\]_`~!\r\t,:\n-.$/\"|*()?{}'"
)

type textState struct {
	sub   int
	shift int // submode for the next character only, -1 none
	set   bool
}

// decode appends the two text values held in codeword c.
func (t *textState) decode(out []byte, c int) []byte {
	if !t.set {
		t.shift, t.set = -1, true
	}
	for _, v := range [2]int{c / 30, c % 30} {
		sub := t.sub
		if t.shift >= 0 {
			sub, t.shift = t.shift, -1
		}
		switch sub {
		case subAlpha, subLower:
			switch {
			case v < 26 && sub == subAlpha:
				out = append(out, byte('A'+v))
			case v < 26:
				out = append(out, byte('a'+v))
			case v == 26:
				out = append(out, ' ')
			case v == 27 && sub == subAlpha:
				t.sub = subLower
			case v == 27:
				t.shift = subAlpha
			case v == 28:
				t.sub = subMixed
			case v == 29:
				t.shift = subPunct
			}
		case subMixed:
			switch {
			case v < 25:
				out = append(out, mixedChars[v])
			case v == 25:
				t.sub = subPunct
			case v == 26:
				out = append(out, ' ')
			case v == 27:
				t.sub = subLower
			case v == 28:
				t.sub = subAlpha
			case v == 29:
				t.shift = subPunct
			}
		case subPunct:
			if v < 29 {
				out = append(out, punctChars[v])
			} else {
				t.sub = subAlpha
			}
		}
	}
	return out
}

// decodeBytes reads a byte compaction run (§5.4.3): groups of five
// codewords carry six bytes in base 900; with latch 901 the final group of
// fewer than six bytes is one byte per codeword. It returns the bytes and
// the number of codewords consumed.
func decodeBytes(cw []int, sixes bool) ([]byte, int, error) {
	n := 0
	for n < len(cw) && cw[n] < 900 {
		n++
	}
	var out []byte
	i := 0
	for ; i+5 <= n; i += 5 {
		if !sixes && i+5 == n {
			break // 901: a trailing group of five is five single bytes
		}
		var v uint64
		for _, c := range cw[i : i+5] {
			v = v*900 + uint64(c)
		}
		if v >= 1<<48 {
			return nil, 0, fmt.Errorf("%w: byte group overflows six bytes", ErrFormat)
		}
		for s := 40; s >= 0; s -= 8 {
			out = append(out, byte(v>>uint(s)))
		}
	}
	for ; i < n; i++ {
		if cw[i] >= 256 {
			return nil, 0, fmt.Errorf("%w: byte codeword %d", ErrFormat, cw[i])
		}
		out = append(out, byte(cw[i]))
	}
	return out, n, nil
}

// decodeNumeric reads a numeric compaction run (§5.4.4): groups of up to
// fifteen codewords are one base-900 number whose decimal form starts
// with a 1 that is not part of the data.
func decodeNumeric(cw []int) ([]byte, int, error) {
	n := 0
	for n < len(cw) && cw[n] < 900 {
		n++
	}
	var out []byte
	nine := big.NewInt(900)
	for i := 0; i < n; i += 15 {
		v := new(big.Int)
		for _, c := range cw[i:min(i+15, n)] {
			v.Mul(v, nine).Add(v, big.NewInt(int64(c)))
		}
		s := v.String()
		if len(s) < 2 || s[0] != '1' {
			return nil, 0, fmt.Errorf("%w: numeric group", ErrFormat)
		}
		out = append(out, s[1:]...)
	}
	return out, n, nil
}

// decodeMacro reads a Macro PDF417 control block: the segment index (two
// codewords, numeric compaction of five digits), the file ID codewords,
// then optional fields and the terminator, which are tolerated.
func decodeMacro(cw []int) (*Macro, error) {
	if len(cw) < 2 || cw[0] >= 900 || cw[1] >= 900 {
		return nil, fmt.Errorf("%w: macro segment index", ErrFormat)
	}
	d, _, err := decodeNumeric(cw[:2])
	if err != nil {
		return nil, err
	}
	idx, err := strconv.Atoi(string(d))
	if err != nil || idx > 99998 {
		return nil, fmt.Errorf("%w: macro segment index", ErrFormat)
	}
	m := &Macro{SegmentIndex: idx}
	i := 2
	for i < len(cw) && cw[i] < 900 {
		m.FileID += fmt.Sprintf("%03d", cw[i])
		i++
	}
	for ; i < len(cw); i++ {
		if cw[i] == macroEnd {
			m.LastSegment = true
		}
	}
	return m, nil
}
