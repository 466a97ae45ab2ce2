package ocr

import "image"

// A translucent colour laid over the zone (a highlighter stroke or a box
// filled in an image editor, a tinted watermark band) mixes a fixed
// colour C into every pixel under it with a fixed weight a:
// pixel = (1−a)·original + a·C. Over a gray original (black ink on light
// paper) every such pixel, ink and paper alike, then has the same chroma
// (max − min of its channels) a·(max C − min C), and the ink is lifted to
// a·max C in the brightest channel that inkGray takes: the band's ink
// turns gray and the cells cut by the band's edge half-faded, which the
// classifier cannot read. Subtracting that uniform chroma and stretching
// back to the paper's level undoes the mix where C is saturated.
//
// What tells such a cast from coloured print that must stay bright (a red
// SPECIMEN stamp, a drawn box's outline, a security background's guilloche)
// is that it is uniform: the cast is the least chroma over a neighbourhood
// wider than a pen stroke, which is 0 wherever neutral paper or neutral
// ink is near. A document's neutral black MRZ ink keeps any tinted paper
// around it untouched for the same reason.
const (
	// minCast: a uniform chroma weaker than this is left alone (JPEG's
	// colour noise, a warm lamp): the photo is then as it was.
	minCast = 24
	// castBlockDiv: the neighbourhood's block is the image's long side
	// over this (3 pixels in a 2000 pixel image), and the neighbourhood is
	// 3 × 3 blocks: wider than a pen's outline or a stamp's stroke,
	// narrower than a highlighter's band.
	castBlockDiv = 600
	// maxCast: the most chroma taken off a pixel.
	maxCast = 240
)

// removeCast undoes a uniform translucent colour in g, given each pixel's
// chroma (same size, row-major).
func removeCast(g *image.Gray, chroma []uint8) {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	if w == 0 || h == 0 {
		return
	}
	bs := max(2, max(w, h)/castBlockDiv)
	bw, bh := (w+bs-1)/bs, (h+bs-1)/bs
	// Least chroma per block, then over each block's 3 × 3 neighbours.
	blk := make([]uint8, bw*bh)
	for i := range blk {
		blk[i] = 255
	}
	found := false
	// A band of block rows per core: each writes only its own blocks.
	inChunks(bh, func(lo, hi int) {
		for y := lo * bs; y < min(h, hi*bs); y++ {
			row := chroma[y*w : (y+1)*w]
			bro := blk[(y/bs)*bw:]
			for x, c := range row {
				if c < bro[x/bs] {
					bro[x/bs] = c
				}
			}
		}
	})
	for _, c := range blk {
		if c >= minCast {
			found = true
			break
		}
	}
	if !found {
		return
	}
	// The cast's region: blocks whose 3 × 3 neighbourhood is all cast
	// (an erosion: thin coloured strokes drop out), grown back by one
	// block (an opening: a band keeps its extent, to a block; each pixel's
	// own chroma decides at its edge).
	floor := blockFilter(blk, bw, bh, 1, false)
	region := blockFilter(floor, bw, bh, 1, true)
	inChunks(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			pix := g.Pix[y*g.Stride : y*g.Stride+w]
			crow := chroma[y*w : (y+1)*w]
			rro := region[(y/bs)*bw:]
			for x, v := range pix {
				r := rro[x/bs]
				if r < minCast {
					continue
				}
				// Each pixel loses its own chroma, up to the region's:
				// under the band ink and paper alike lose the cast; just
				// past its edge a neutral pixel loses nothing, so that
				// no character is cut into a corrected and an
				// uncorrected part. At most maxCast: a pure colour
				// (chroma 255) would leave no paper level to stretch to.
				pix[x] = uncast[min(crow[x], r, maxCast)][v]
			}
		}
	})
}

// blockFilter is the least (or, grow, the greatest) value over each
// block's neighbours within rad blocks: along the rows, then down the
// columns of that (the square's extreme is its columns' extremes).
func blockFilter(in []uint8, bw, bh, rad int, grow bool) []uint8 {
	rows := make([]uint8, len(in))
	inChunks(bh, func(lo, hi int) {
		for by := lo; by < hi; by++ {
			src, dst := in[by*bw:(by+1)*bw], rows[by*bw:(by+1)*bw]
			for bx := range bw {
				m := src[bx]
				for _, v := range src[max(0, bx-rad):min(bw, bx+rad+1)] {
					if grow {
						m = max(m, v)
					} else {
						m = min(m, v)
					}
				}
				dst[bx] = m
			}
		}
	})
	out := make([]uint8, len(in))
	inChunks(bh, func(lo, hi int) {
		for by := lo; by < hi; by++ {
			dst := out[by*bw : (by+1)*bw]
			copy(dst, rows[by*bw:(by+1)*bw])
			for y := max(0, by-rad); y <= min(bh-1, by+rad); y++ {
				for bx, v := range rows[y*bw : (y+1)*bw] {
					if grow {
						dst[bx] = max(dst[bx], v)
					} else {
						dst[bx] = min(dst[bx], v)
					}
				}
			}
		}
	})
	return out
}

// uncast[c][v] is gray level v with a chroma c taken off, the rest
// stretched back to the paper's white: (v − c)·255/(255 − c), a table
// rather than a division per pixel.
var uncast = func() *[maxCast + 1][256]uint8 {
	var t [maxCast + 1][256]uint8
	for c := range t {
		for v := range t[c] {
			t[c][v] = uint8(min(max((v-c)*255/(255-c), 0), 255))
		}
	}
	return &t
}()
