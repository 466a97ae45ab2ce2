//go:build !amd64

package ocr

const hasVectorSums = false

func accum24(dst, w, vals []float32, idx []int32, stride int) {
	accum24Go(dst, w, vals, idx, stride)
}

func accum12(dst, w, vals []float32, idx []int32, stride int) {
	accum12Go(dst, w, vals, idx, stride)
}
