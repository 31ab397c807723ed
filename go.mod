module github.com/m2m-go/m2m

go 1.26

require (
	github.com/klauspost/cpuid/v2 v2.4.2
	golang.org/x/sys v0.41.0
)
