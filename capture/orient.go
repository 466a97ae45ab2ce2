package capture

// placement says where pixel (x, y) of a w×h image lands in the 4-byte
// pixels of that image turned for EXIF orientation o: at byte offset
// start + x*dx + y*dy of a tightly packed ow×oh buffer. Orientation o says
// how the stored pixels must be transformed for display; each case below
// gives where source pixel (x, y) is shown:
//
//	1 as is      (x, y)              5 transpose   (y, x)
//	2 mirror     (w-1-x, y)          6 rotate 90°  (h-1-y, x)
//	3 rotate 180 (w-1-x, h-1-y)      7 transverse  (h-1-y, w-1-x)
//	4 flip       (x, h-1-y)          8 rotate 270° (y, w-1-x)
//
// Writing each pixel straight to its place turns an image without a second
// full-size buffer.
func placement(o, w, h int) (start, dx, dy, ow, oh int) {
	ow, oh = w, h
	if o >= 5 && o <= 8 {
		ow, oh = h, w
	}
	row := 4 * ow // bytes per output row
	at := func(x, y int) int { return y*row + 4*x }
	switch o {
	case 2:
		return at(w-1, 0), -4, row, ow, oh
	case 3:
		return at(w-1, h-1), -4, -row, ow, oh
	case 4:
		return at(0, h-1), 4, -row, ow, oh
	case 5:
		return 0, row, 4, ow, oh
	case 6:
		return at(h-1, 0), row, -4, ow, oh
	case 7:
		return at(h-1, w-1), -row, -4, ow, oh
	case 8:
		return at(0, w-1), -row, 4, ow, oh
	}
	return 0, 4, row, ow, oh
}
