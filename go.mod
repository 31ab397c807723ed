module github.com/m2m-go/m2m

go 1.26.0

require (
	github.com/andybalholm/brotli v1.2.8
	github.com/klauspost/compress v1.20.3
	github.com/klauspost/cpuid/v2 v2.4.2
	golang.org/x/crypto v0.58.0
	golang.org/x/sys v0.49.0
)
