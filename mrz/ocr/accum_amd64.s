#include "textflag.h"

// func accum24AVX(dst *float32, w *float32, vals *float32, idx *int32, n int, stride int)
//
// dst[0:24] += vals[i] * w[idx[i]*stride : idx[i]*stride+24] for
// i = 0 … n−1, in that order: a multiply rounded to float32, then an add,
// per lane, as the Go loop in accum24Go does (no fused multiply-add).
TEXT ·accum24AVX(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ w+8(FP), SI
	MOVQ vals+16(FP), R8
	MOVQ idx+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ stride+40(FP), R10
	SHLQ $2, R10
	VMOVUPS 0(DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	TESTQ CX, CX
	JEQ done

loop:
	VBROADCASTSS (R8), Y3
	MOVLQSX (R9), AX
	IMULQ R10, AX
	VMULPS 0(SI)(AX*1), Y3, Y4
	VADDPS Y4, Y0, Y0
	VMULPS 32(SI)(AX*1), Y3, Y5
	VADDPS Y5, Y1, Y1
	VMULPS 64(SI)(AX*1), Y3, Y6
	VADDPS Y6, Y2, Y2
	ADDQ $4, R8
	ADDQ $4, R9
	DECQ CX
	JNE loop

done:
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VZEROUPPER
	RET

// func accum12AVX(dst *float32, w *float32, vals *float32, idx *int32, n int, stride int)
//
// accum24AVX for 12 lanes: eight in a Y register, four in an X one.
TEXT ·accum12AVX(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ w+8(FP), SI
	MOVQ vals+16(FP), R8
	MOVQ idx+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ stride+40(FP), R10
	SHLQ $2, R10
	VMOVUPS 0(DI), Y0
	VMOVUPS 32(DI), X1
	TESTQ CX, CX
	JEQ done12

loop12:
	VBROADCASTSS (R8), Y3
	MOVLQSX (R9), AX
	IMULQ R10, AX
	VMULPS 0(SI)(AX*1), Y3, Y4
	VADDPS Y4, Y0, Y0
	VMULPS 32(SI)(AX*1), X3, X5
	VADDPS X5, X1, X1
	ADDQ $4, R8
	ADDQ $4, R9
	DECQ CX
	JNE loop12

done12:
	VMOVUPS Y0, 0(DI)
	VMOVUPS X1, 32(DI)
	VZEROUPPER
	RET
