module github.com/m2m-go/m2m

go 1.26.0

require (
	github.com/andybalholm/brotli v1.2.8
	github.com/dlclark/regexp2 v1.10.0
	github.com/klauspost/compress v1.20.3
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/molecule-man/go-brrr v1.3.1
	github.com/pkoukk/tiktoken-go v0.1.8
	golang.org/x/crypto v0.58.0
	golang.org/x/sys v0.49.0
	golang.org/x/term v0.47.0
)

require github.com/google/uuid v1.3.0 // indirect
