package huge

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// TestEligible checks with the kernel that advised memory may get huge
// pages (smaps' THPeligible), where transparent huge pages are enabled
// for memory that asks: that the advice is given, whether or not the
// kernel then has huge pages to give.
func TestEligible(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || !bytes.Contains(mode, []byte("[madvise]")) {
		t.Skipf("transparent huge pages not in madvise mode: %q %v", mode, err)
	}
	// A control: a mapping of our own, advised directly. Where even it
	// reads not eligible (qemu-user keeps advice from the kernel), there
	// is nothing to check.
	m, err := syscall.Mmap(-1, 0, 4<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip(err)
	}
	defer syscall.Munmap(m)
	if err := syscall.Madvise(m, syscall.MADV_HUGEPAGE); err != nil {
		t.Skip(err)
	}
	if ok, err := eligible(uintptr(unsafe.Pointer(&m[0]))); err != nil || !ok {
		t.Skipf("a mapping advised directly is not eligible either (%v): advice does not reach the kernel here", err)
	}
	b := Bytes(8 << 20)
	mid := uintptr(unsafe.Pointer(unsafe.SliceData(b[:1]))) + 4<<20
	if got, err := eligible(mid); err != nil {
		t.Skip(err)
	} else if !got {
		t.Fatalf("the VMA at %#x is not eligible for huge pages after Advise", mid)
	}
}

// eligible reports smaps' THPeligible for the mapping holding addr.
func eligible(addr uintptr) (bool, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return false, err
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		// A mapping's first line is its range ("lo-hi perms ..."), then
		// come its fields ("Name: value").
		if first, _, _ := strings.Cut(line, " "); !strings.HasSuffix(first, ":") {
			var lo, hi uintptr
			if _, err := fmt.Sscanf(first, "%x-%x", &lo, &hi); err != nil {
				return false, fmt.Errorf("smaps line %q: %v", line, err)
			}
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "THPeligible:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "THPeligible:")) == "1", nil
		}
	}
	if err := sc.Err(); err != nil {
		return false, err
	}
	return false, fmt.Errorf("no THPeligible line for %#x", addr)
}

// TestAligned checks that aligned gives whole huge pages: a buffer that
// starts on a huge page's boundary, of a multiple of Size.
func TestAligned(t *testing.T) {
	for _, n := range []int{Min, Min + 1, Size, 3*Size + 17, 5 << 20} {
		b := aligned(n)
		p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		if p%Size != 0 || cap(b)%Size != 0 || cap(b) < n || cap(b)-n >= Size {
			t.Fatalf("Bytes(%d): at %#x, capacity %d: not whole huge pages", n, p, cap(b))
		}
	}
}
