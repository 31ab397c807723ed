//go:build !purego

#include "textflag.h"

// func prefetch2(p, q *byte)
TEXT ·prefetch2(SB), NOSPLIT|NOFRAME, $0-16
	MOVD p+0(FP), R0
	MOVD q+8(FP), R1
	PRFM (R0), PLDL1KEEP
	PRFM (R1), PLDL1KEEP
	RET

// func prefetchAt(base *byte, offs *int32, n int)
TEXT ·prefetchAt(SB), NOSPLIT|NOFRAME, $0-24
	MOVD base+0(FP), R0
	MOVD offs+8(FP), R1
	MOVD n+16(FP), R2
	CMP  $0, R2
	BLE  done
loop:
	MOVW.P 4(R1), R3
	ADD  R3, R0, R4
	PRFM (R4), PLDL1KEEP
	SUBS $1, R2, R2
	BNE  loop
done:
	RET
