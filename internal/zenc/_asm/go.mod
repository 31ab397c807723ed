module github.com/m2m-go/m2m/internal/zenc/_asm

go 1.26

require github.com/mmcloughlin/avo v0.6.0

require (
	golang.org/x/mod v0.27.0 // indirect
	golang.org/x/sync v0.16.0 // indirect
	golang.org/x/tools v0.36.0 // indirect; avo v0.6.0's own pin does not build on Go 1.26
)
