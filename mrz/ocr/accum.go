package ocr

// accum24Go adds vals[i]·w[idx[i]·stride …+24] into dst[0:24] for every
// i in order, each product rounded to float32 before it is added: the
// order and rounding of the layers' sums, so that the vector form
// (accum24) matches it bit for bit.
func accum24Go(dst, w, vals []float32, idx []int32, stride int) {
	d := (*[24]float32)(dst[:24])
	for k, v := range vals {
		r := (*[24]float32)(w[int(idx[k])*stride:])
		for o := range d {
			d[o] += float32(v * r[o])
		}
	}
}

// accum12Go is accum24Go for 12 lanes.
func accum12Go(dst, w, vals []float32, idx []int32, stride int) {
	d := (*[12]float32)(dst[:12])
	for k, v := range vals {
		r := (*[12]float32)(w[int(idx[k])*stride:])
		for o := range d {
			d[o] += float32(v * r[o])
		}
	}
}
