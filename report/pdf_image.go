package report

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	_ "image/png" // captures arrive as JPEG, PNG or WebP
	"sync"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp"
)

// thumbMax is the long side of a thumbnail in pixels: about 250 dpi at
// the 62 mm a capture is printed, sharp enough to read a document's text
// on paper while keeping the PDF small.
const thumbMax = 600

// thumbQuality is the JPEG quality of thumbnails; at 80 the document
// photos keep legible text at a fraction of the original size.
const thumbQuality = 80

// thumb is one capture's printable image, or why there is none.
type thumb struct {
	jpg  []byte
	w, h int
	err  error
}

// makeThumbs scales every capture's image in parallel: decoding and
// scaling megapixel photos is most of a report's rendering time, and each
// image is independent. The result is in capture order.
func makeThumbs(caps []CapturePart, images map[string][]byte, masked bool) []thumb {
	out := make([]thumb, len(caps))
	scaled := make([]*image.RGBA, len(caps))
	var wg sync.WaitGroup
	for i, c := range caps {
		if masked && c.Kind == "document" {
			out[i].err = errors.New(withheldImage)
			continue
		}
		data, ok := images[c.ID]
		if !ok || len(data) == 0 {
			out[i].err = fmt.Errorf("no image stored for capture %s", c.ID)
			continue
		}
		wg.Go(func() { scaled[i], out[i].err = scale(data) })
	}
	wg.Wait()
	distinctWidths(scaled)
	for i, img := range scaled {
		if img == nil {
			continue
		}
		wg.Go(func() { out[i].jpg, out[i].w, out[i].h, out[i].err = encode(img) })
	}
	wg.Wait()
	return out
}

// distinctWidths crops a pixel column off the right edge of a thumbnail
// whose width an earlier one already has. fpdf v0.12.0 writes images
// ordered by pixel width only, equal widths in map order, so two
// thumbnails 600 pixels wide would make renders of one report differ.
// A thumbnail loses at most one column per earlier thumbnail.
func distinctWidths(imgs []*image.RGBA) {
	used := map[int]bool{}
	for i, img := range imgs {
		if img == nil {
			continue
		}
		r := img.Rect
		w := r.Dx()
		for used[w] && w > 1 {
			w--
		}
		used[w] = true
		if w != r.Dx() {
			imgs[i] = img.SubImage(image.Rect(r.Min.X, r.Min.Y, r.Min.X+w, r.Max.Y)).(*image.RGBA)
		}
	}
}

// thumbnail is scale and encode: one image's thumbnail as JPEG bytes.
func thumbnail(data []byte) ([]byte, int, int, error) {
	img, err := scale(data)
	if err != nil {
		return nil, 0, 0, err
	}
	return encode(img)
}

func encode(img *image.RGBA) ([]byte, int, int, error) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: thumbQuality}); err != nil {
		return nil, 0, 0, fmt.Errorf("encode thumbnail: %w", err)
	}
	return buf.Bytes(), img.Rect.Dx(), img.Rect.Dy(), nil
}

// scale decodes an image and scales it so its long side is at most
// thumbMax pixels. Transparent parts (PNG) become white, as on paper.
func scale(data []byte) (*image.RGBA, error) {
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decode image: %w", err)
	}
	sb := src.Bounds()
	w, h := sb.Dx(), sb.Dy()
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("decode image: empty (%dx%d)", w, h)
	}
	if long := max(w, h); long > thumbMax {
		w = max(1, w*thumbMax/long)
		h = max(1, h*thumbMax/long)
	}
	// CatmullRom over a megapixel photo costs ~80 ms and ApproxBiLinear
	// alone aliases on 3x to 6x reductions, so an integer box filter
	// (averaging k×k blocks) does the bulk of the reduction first. What
	// is left is a reduction by less than 2, where bilinear has nothing
	// to alias, and ApproxBiLinear does it in a millisecond (CatmullRom
	// took 10 ms and a 9 MB buffer per image here).
	k := min(sb.Dx()/w, sb.Dy()/h)
	var mid *image.RGBA
	if yc, ok := src.(*image.YCbCr); ok && k >= 2 {
		mid = shrinkYCbCr(yc, k) // JPEG: no full-size RGBA copy needed
	} else {
		// Flatten onto white: transparent parts of a PNG print as paper.
		mid = image.NewRGBA(image.Rect(0, 0, sb.Dx(), sb.Dy()))
		draw.Draw(mid, mid.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
		draw.Draw(mid, mid.Bounds(), src, sb.Min, draw.Over)
		if k >= 2 {
			mid = shrink(mid, k)
		}
	}
	if mid.Rect.Dx() == w && mid.Rect.Dy() == h {
		return mid, nil // an exact multiple: the box filter did it all
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), mid, mid.Bounds(), draw.Src, nil)
	return dst, nil
}

// shrink averages each k×k block of src into one pixel (dropping the
// partial blocks at the right and bottom edges, at most k-1 pixels).
func shrink(src *image.RGBA, k int) *image.RGBA {
	w, h := src.Rect.Dx()/k, src.Rect.Dy()/k
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	sums := make([]uint32, 4*w)
	n := uint32(k * k)
	for y := range h {
		clear(sums)
		for sy := y * k; sy < y*k+k; sy++ {
			row := src.Pix[sy*src.Stride : sy*src.Stride+4*w*k]
			for x := range w {
				s := sums[4*x : 4*x+4 : 4*x+4]
				for i := 4 * x * k; i < 4*(x+1)*k; i += 4 {
					s[0] += uint32(row[i])
					s[1] += uint32(row[i+1])
					s[2] += uint32(row[i+2])
					s[3] += uint32(row[i+3])
				}
			}
		}
		out := dst.Pix[y*dst.Stride : y*dst.Stride+4*w]
		for i, v := range sums {
			out[i] = uint8((v + n/2) / n)
		}
	}
	return dst
}

// shrinkYCbCr is shrink for a decoded JPEG: it averages each k×k block
// in Y′CbCr, each pixel taking the chroma sample the subsampled planes
// give it, and converts the averages to RGB (the conversion is affine, so
// this equals converting first, up to rounding and clipping).
func shrinkYCbCr(src *image.YCbCr, k int) *image.RGBA {
	hs, vs := 1, 1
	switch src.SubsampleRatio {
	case image.YCbCrSubsampleRatio422:
		hs = 2
	case image.YCbCrSubsampleRatio420:
		hs, vs = 2, 2
	case image.YCbCrSubsampleRatio440:
		vs = 2
	case image.YCbCrSubsampleRatio411:
		hs = 4
	case image.YCbCrSubsampleRatio410:
		hs, vs = 4, 2
	}
	r := src.Rect
	w, h := r.Dx()/k, r.Dy()/k
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	// Chroma column of each source column, as image.YCbCr.COffset has it.
	cx := make([]int, w*k)
	for x := range cx {
		cx[x] = (r.Min.X+x)/hs - r.Min.X/hs
	}
	ys, cbs, crs := make([]uint32, w), make([]uint32, w), make([]uint32, w)
	n := uint32(k * k)
	for y := range h {
		clear(ys)
		clear(cbs)
		clear(crs)
		for sy := y * k; sy < y*k+k; sy++ {
			yrow := src.Y[sy*src.YStride:]
			crow := ((r.Min.Y+sy)/vs - r.Min.Y/vs) * src.CStride
			cb, cr := src.Cb[crow:], src.Cr[crow:]
			for x := range w {
				var sY, sCb, sCr uint32
				for sx := x * k; sx < x*k+k; sx++ {
					sY += uint32(yrow[sx])
					sCb += uint32(cb[cx[sx]])
					sCr += uint32(cr[cx[sx]])
				}
				ys[x] += sY
				cbs[x] += sCb
				crs[x] += sCr
			}
		}
		out := dst.Pix[y*dst.Stride:]
		for x := range w {
			rr, gg, bb := color.YCbCrToRGB(uint8((ys[x]+n/2)/n), uint8((cbs[x]+n/2)/n), uint8((crs[x]+n/2)/n))
			out[4*x], out[4*x+1], out[4*x+2], out[4*x+3] = rr, gg, bb, 0xff
		}
	}
	return dst
}
