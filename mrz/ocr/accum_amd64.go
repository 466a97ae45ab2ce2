package ocr

import "golang.org/x/sys/cpu"

// hasVectorSums tells whether accum24 and accum12 run on the vector unit
// (AVX, which every x86-64 machine of the last decade has, the operating
// system permitting).
var hasVectorSums = cpu.X86.HasAVX

//go:noescape
func accum24AVX(dst *float32, w *float32, vals *float32, idx *int32, n int, stride int)

// accum24 is accum24Go on the vector unit, eight lanes at a time. Every
// idx[i]·stride+24 must be within w: the callers' loops guarantee it
// rather than a check per entry, which would cost a tenth of the work.
func accum24(dst, w, vals []float32, idx []int32, stride int) {
	if !hasVectorSums {
		accum24Go(dst, w, vals, idx, stride)
		return
	}
	_ = dst[23]
	if len(vals) == 0 {
		return
	}
	_ = idx[len(vals)-1]
	accum24AVX(&dst[0], &w[0], &vals[0], &idx[0], len(vals), stride)
}

//go:noescape
func accum12AVX(dst *float32, w *float32, vals *float32, idx *int32, n int, stride int)

// accum12 is accum24 for 12 lanes.
func accum12(dst, w, vals []float32, idx []int32, stride int) {
	if !hasVectorSums {
		accum12Go(dst, w, vals, idx, stride)
		return
	}
	_ = dst[11]
	if len(vals) == 0 {
		return
	}
	_ = idx[len(vals)-1]
	accum12AVX(&dst[0], &w[0], &vals[0], &idx[0], len(vals), stride)
}
